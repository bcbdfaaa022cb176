//! Accesses through views (issue 70 §1, `views`): an `affine.load` or
//! `affine.store` whose memref is a view of another buffer — a
//! `memref.expand_shape` or `memref.collapse_shape` (a front end's
//! reshape), a `memref.reinterpret_cast` or a `memref.subview` of static
//! offsets, sizes and strides, through `memref.cast`s — reads and writes
//! cells of that buffer, which the model cannot tell apart from the
//! buffer's other accesses through another name, so such nests were left
//! unchanged ("access through 'memref.collapse_shape' (a view) is not
//! modeled"). Where every view on the way is defined outside the nest and
//! of static shape, the access is rewritten, before detection, as an
//! access of the buffer itself with its subscripts composed through the
//! views: the model then sees one array and exact dependences.
//!
//! Each view maps the subscripts of its result to its source's (index
//! space, row-major), outermost view first:
//!
//! - `expand_shape` (groups of result dimensions into one source
//!   dimension): `src[g] = Σ_k e_k · Π(sizes of the group after k)`;
//! - `collapse_shape` (groups of source dimensions into one result
//!   dimension): the group's index delinearized over the source sizes,
//!   `(e floordiv Π(later sizes)) mod size` (the first without `mod`);
//! - `subview`: `src_k = offset_k + e_k · stride_k` (not rank-reducing);
//! - `reinterpret_cast` of a buffer with the identity layout: the flat
//!   position `offset + Σ e_k · stride_k` delinearized over the source's
//!   static shape.
//!
//! The rewritten nest keeps a copy of its input ([`super::demote::Nest`]),
//! which comes back where its SCoP is not rewritten.

use crate::codegen::map_text::{map_results, with_results};
use crate::ffi::build::{self, AttrHandle, Builder};
use crate::ffi::ir::{Op, Val};

/// One access rewritten to the buffer its views show.
pub(super) struct Reroute {
    /// The access.
    op: Op,
    /// The buffer under the views.
    base: Val,
    /// The access's new map.
    map: AttrHandle,
    /// The views' operation names, outermost first (for the remark).
    through: Vec<String>,
}

impl Reroute {
    /// Points the access at the buffer with its new map.
    pub(super) fn apply(self) {
        let at = usize::from(self.op.name() == "affine.store");
        build::set_operand(self.op, at, self.base);
        build::set_attr(self.op, "map", self.map);
    }
}

/// The remark's phrase for `reroutes` (one nest's).
pub(super) fn note(reroutes: &[Reroute]) -> String {
    let mut names: Vec<&str> = reroutes.iter().flat_map(|r| r.through.iter().map(String::as_str)).collect();
    names.sort_unstable();
    names.dedup();
    let n = reroutes.len();
    format!(
        "{n} access{} through {} modeled as access{} of the buffer viewed (subscripts composed through the view)",
        if n == 1 { "" } else { "es" },
        names.iter().map(|x| format!("'{x}'")).collect::<Vec<_>>().join(", "),
        if n == 1 { "" } else { "es" },
    )
}

/// The memref operand's position of an affine access (`None` for another
/// operation).
fn memref_position(op: Op) -> Option<usize> {
    match op.name().as_str() {
        "affine.load" => Some(0),
        "affine.store" => Some(1),
        _ => None,
    }
}

/// True for the view operations this module composes.
fn is_view(name: &str) -> bool {
    matches!(
        name,
        "memref.expand_shape" | "memref.collapse_shape" | "memref.reinterpret_cast" | "memref.subview"
    )
}

/// The affine loads and stores inside `op` whose memref is defined by a
/// view operation (through `memref.cast`s).
pub(super) fn view_accesses(op: Op, out: &mut Vec<Op>) {
    for o in op.preorder() {
        let Some(at) = memref_position(o) else {
            continue;
        };
        let mut v = o.operands().get(at).copied();
        while let Some(def) = v.and_then(|m| m.defining_op()) {
            let name = def.name();
            if name == "memref.cast" {
                v = def.operands().first().copied();
            } else {
                if is_view(&name) {
                    out.push(o);
                }
                break;
            }
        }
    }
}

/// `op` (an access through views, [`view_accesses`]) as an access of the
/// buffer under them, the views defined outside `root` (the nest); `None`
/// where a view is not one of static shape this module composes.
pub(super) fn reroute(op: Op, root: Op, b: &Builder) -> Option<Reroute> {
    let at = memref_position(op)?;
    let map = op.attr(c"map")?.text();
    let mut results = map_results(&map)?;
    let mut v = *op.operands().get(at)?;
    let mut through = Vec::new();
    while let Some(def) = v.defining_op() {
        let name = def.name();
        if name != "memref.cast" && !is_view(&name) {
            break;
        }
        if def.is_within(root) {
            return None;
        }
        let source = *def.operands().first()?;
        results = match name.as_str() {
            "memref.cast" => results,
            "memref.expand_shape" => expand(def, &results)?,
            "memref.collapse_shape" => collapse(def, source, &results)?,
            "memref.subview" => subview(def, source, &results)?,
            _ => reinterpret(def, source, &results)?,
        };
        if name != "memref.cast" {
            through.push(name);
        }
        v = source;
    }
    // One subscript per dimension of the buffer.
    if through.is_empty() || shape(&v.type_text())?.len() != results.len() {
        return None;
    }
    let map = b.attr(&with_results(&map, &results)?).ok()?;
    Some(Reroute {
        op,
        base: v,
        map,
        through,
    })
}

/// The shape of a memref type (`None` for a dynamic size), its layout
/// and memory space aside (`memref<?x63xf64, strided<[63, 1], offset:
/// 16>>`: ?, 63).
fn shape(ty: &str) -> Option<Vec<Option<i64>>> {
    let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    let dims = inner.split(',').next()?.trim();
    let mut parts: Vec<&str> = dims.split('x').collect();
    parts.pop()?;
    parts
        .iter()
        .map(|p| match *p {
            "?" => Some(None),
            _ => p.parse().ok().map(Some),
        })
        .collect()
}

/// Whether a memref type has the identity layout (no layout attribute).
fn identity_layout(ty: &str) -> bool {
    ty.strip_prefix("memref<")
        .and_then(|t| t.strip_suffix('>'))
        .is_some_and(|inner| !inner.contains(','))
}

/// The groups of a `reassociation` attribute (`[[0, 1], [2]]`).
fn groups(op: Op) -> Option<Vec<Vec<usize>>> {
    let text = op.attr(c"reassociation")?.text();
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    for part in inner.split(']') {
        let part = part.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        let Some(list) = part.strip_prefix('[') else {
            if part.trim().is_empty() {
                continue;
            }
            return None;
        };
        let group: Vec<usize> = list.split(',').map(|x| x.trim().parse().ok()).collect::<Option<_>>()?;
        out.push(group);
    }
    Some(out)
}

/// `e · c` as text (`e` parenthesized).
fn times(e: &str, c: i64) -> String {
    if c == 1 {
        format!("({e})")
    } else {
        format!("({e}) * {c}")
    }
}

/// The sum of `terms` (texts) and `constant`.
fn sum(terms: &[String], constant: i64) -> String {
    let mut out = terms.join(" + ");
    if out.is_empty() {
        return constant.to_string();
    }
    if constant != 0 {
        out = format!("{out} + {constant}");
    }
    out
}

/// `flat` delinearized over `sizes` (row-major): one index per size, the
/// first without `mod` (its size, which may be dynamic, is not needed;
/// the others must be static).
fn delinearize(flat: &str, sizes: &[Option<i64>]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for k in 0..sizes.len() {
        let below: i64 = sizes[k + 1..].iter().try_fold(1i64, |p, &s| p.checked_mul(s?))?;
        let q = if below == 1 {
            format!("({flat})")
        } else {
            format!("(({flat}) floordiv {below})")
        };
        out.push(if k == 0 { q } else { format!("{q} mod {}", sizes[k]?) });
    }
    Some(out)
}

/// The source subscripts of an `expand_shape`'s result subscripts `e`.
fn expand(op: Op, e: &[String]) -> Option<Vec<String>> {
    let view = shape(&op.result(0)?.type_text())?;
    let groups = groups(op)?;
    groups
        .iter()
        .map(|g| {
            let terms: Option<Vec<String>> = g
                .iter()
                .enumerate()
                .map(|(j, &k)| {
                    let below = g[j + 1..].iter().try_fold(1i64, |p, &m| p.checked_mul((*view.get(m)?)?))?;
                    Some(times(e.get(k)?, below))
                })
                .collect();
            Some(sum(&terms?, 0))
        })
        .collect()
}

/// The source subscripts of a `collapse_shape`'s result subscripts `e`.
fn collapse(op: Op, source: Val, e: &[String]) -> Option<Vec<String>> {
    let src = shape(&source.type_text())?;
    let groups = groups(op)?;
    // Into a 0-d view (no groups): every source dimension is a unit one.
    if groups.is_empty() {
        return src.iter().all(|&d| d == Some(1)).then(|| vec!["0".to_string(); src.len()]);
    }
    if groups.len() != e.len() {
        return None;
    }
    let mut out = Vec::new();
    for (g, idx) in groups.iter().zip(e) {
        let sizes: Vec<Option<i64>> = g.iter().map(|&k| src.get(k).copied()).collect::<Option<_>>()?;
        out.extend(delinearize(idx, &sizes)?);
    }
    Some(out)
}

/// The static offsets, sizes and strides of a `subview` or
/// `reinterpret_cast` without dynamic operands.
fn static_parts(op: Op) -> Option<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    if op.operands().len() != 1 {
        return None;
    }
    Some((
        op.attr(c"static_offsets")?.int_list()?,
        op.attr(c"static_sizes")?.int_list()?,
        op.attr(c"static_strides")?.int_list()?,
    ))
}

/// The source subscripts of a `subview`'s result subscripts `e` (not
/// rank-reducing).
fn subview(op: Op, source: Val, e: &[String]) -> Option<Vec<String>> {
    let (offsets, sizes, strides) = static_parts(op)?;
    let rank = shape(&source.type_text())?.len();
    if offsets.len() != rank || sizes.len() != rank || strides.len() != rank || e.len() != rank {
        return None;
    }
    Some(
        e.iter()
            .zip(offsets.iter().zip(&strides))
            .map(|(x, (&o, &s))| sum(&[times(x, s)], o))
            .collect(),
    )
}

/// The source subscripts of a `reinterpret_cast`'s result subscripts `e`:
/// the flat position delinearized over the source's static shape (a
/// source with the identity layout).
fn reinterpret(op: Op, source: Val, e: &[String]) -> Option<Vec<String>> {
    let ty = source.type_text();
    if !identity_layout(&ty) {
        return None;
    }
    let src = shape(&ty)?;
    let (offsets, sizes, strides) = static_parts(op)?;
    let [offset] = offsets[..] else {
        return None;
    };
    if sizes.len() != e.len() || strides.len() != e.len() || offset < 0 {
        return None;
    }
    let terms: Vec<String> = e.iter().zip(&strides).map(|(x, &s)| times(x, s)).collect();
    delinearize(&sum(&terms, offset), &src)
}

#[cfg(test)]
mod tests {
    use super::{delinearize, identity_layout, shape, sum, times};

    #[test]
    fn shapes_with_layouts() {
        assert_eq!(shape("memref<32x63xf64, strided<[63, 1], offset: 16>>"), Some(vec![Some(32), Some(63)]));
        assert_eq!(shape("memref<2048xf32>"), Some(vec![Some(2048)]));
        assert_eq!(shape("memref<f64>"), Some(vec![]));
        assert_eq!(shape("memref<?x8xf64>"), Some(vec![None, Some(8)]));
        assert_eq!(shape("memref<4x?x8xf64, 1>"), Some(vec![Some(4), None, Some(8)]));
        assert!(identity_layout("memref<4x8xf64>"));
        assert!(!identity_layout("memref<4x8xf64, strided<[8, 1]>>"));
    }

    #[test]
    fn delinearized_positions() {
        assert_eq!(
            delinearize("d0", &[None, Some(8), Some(5)]).unwrap(),
            vec!["((d0) floordiv 40)", "((d0) floordiv 5) mod 8", "(d0) mod 5"]
        );
        assert_eq!(delinearize("d0 + 1", &[Some(7)]).unwrap(), vec!["(d0 + 1)"]);
        // Only the first size may be dynamic.
        assert_eq!(delinearize("d0", &[Some(4), None]), None);
        assert_eq!(sum(&[times("d0", 63), times("d1", 1)], 16), "(d0) * 63 + (d1) + 16");
    }
}
