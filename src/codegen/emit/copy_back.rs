//! Privatization's copy-back: an array expanded along leading iterators
//! (a temporary given a cell per iteration, see [`crate::rewrite::privatize`])
//! is copied back from its last iteration's slice after the SCoP, and its
//! accesses' maps are rewritten for the expanded buffer.

use super::{affine_for, EmitError};
use crate::ffi::build::{Builder, Point};
use crate::ffi::ir::{Op, Val};

/// Emits `X[e] = X'[last - lb][e]` for every cell `e` of `X`, before `at`.
pub(super) fn copy_back(
    b: &Builder,
    x: &crate::scop::expansion::Expansion,
    last: &[i64],
    buf: Val,
    array: Val,
    at: Op,
) -> Result<(), EmitError> {
    let mut point = Point::Before(at);
    let mut ivs = Vec::new();
    for &n in &x.shape {
        let lmap = b.attr("affine_map<() -> (0)>")?;
        let umap = b.attr(&format!("affine_map<() -> ({n})>"))?;
        let (_, block) = affine_for(b, point, lmap, umap, &[], &[])?;
        ivs.push(block.arg(0).ok_or("loop without induction variable")?);
        b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
        // Insert the next loop (or the copy) before this block's yield.
        point = Point::Before(block.ops().last().copied().ok_or("empty loop body")?);
    }
    let dims: Vec<String> = (0..x.shape.len()).map(|k| format!("d{k}")).collect();
    let lead: Vec<String> = last
        .iter()
        .zip(&x.bounds)
        .map(|(&v, &(lo, _))| v.checked_sub(lo).map(|d| d.to_string()))
        .collect::<Option<_>>()
        .ok_or("expanded index out of range")?;
    let header = format!("({})", dims.join(", "));
    let load_map = b.attr(&format!(
        "affine_map<{header} -> ({}, {})>",
        lead.join(", "),
        dims.join(", ")
    ))?;
    let mut operands = vec![buf];
    operands.extend(ivs.iter().copied());
    let load = b
        .create_typed(
            point,
            "affine.load",
            &operands,
            &[&x.elem],
            &[("map", load_map)],
        )
        .ok_or_else(|| format!("cannot build the type {}", x.elem))?;
    let v = load.result(0).ok_or("affine.load without result")?;
    let store_map = b.attr(&format!("affine_map<{header} -> ({})>", dims.join(", ")))?;
    let mut operands = vec![v, array];
    operands.extend(ivs.iter().copied());
    b.create(
        point,
        "affine.store",
        &operands,
        0,
        &[("map", store_map)],
        &[],
    );
    Ok(())
}

/// The map text `(d0…)[s…] -> (r…)` of an access, rewritten for `lead`
/// new leading dimensions with results `d_k - lows[k]`, the old dimensions
/// renumbered after them.
pub(super) fn expanded_map(old: &str, lead: usize, lows: &[i64]) -> Option<String> {
    let inner = old.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (head, results) = inner.split_once(" -> ")?;
    if !head.starts_with('(') {
        return None;
    }
    let close = head.find(')')?;
    let dims_text = &head[1..close];
    let syms = &head[close + 1..];
    let n_old = if dims_text.trim().is_empty() {
        0
    } else {
        dims_text.split(',').count()
    };
    // Renumber d<k> to d<k + lead> in the results.
    let mut shifted = String::new();
    let chars: Vec<char> = results.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i] == 'd'
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
            && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit());
        if starts {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let k: usize = chars[i + 1..j].iter().collect::<String>().parse().ok()?;
            shifted.push_str(&format!("d{}", k + lead));
            i = j;
        } else {
            shifted.push(chars[i]);
            i += 1;
        }
    }
    let body = shifted.trim().strip_prefix('(')?.strip_suffix(')')?;
    let dims: Vec<String> = (0..n_old + lead).map(|k| format!("d{k}")).collect();
    let mut res: Vec<String> = lows
        .iter()
        .enumerate()
        .map(|(k, &lo)| {
            if lo == 0 {
                format!("d{k}")
            } else if lo > 0 {
                format!("d{k} - {lo}")
            } else {
                format!("d{k} + {}", lo.unsigned_abs())
            }
        })
        .collect();
    if !body.trim().is_empty() {
        res.push(body.to_string());
    }
    Some(format!(
        "affine_map<({}){syms} -> ({})>",
        dims.join(", "),
        res.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::expanded_map;

    #[test]
    fn expanded_maps_prepend_the_iterators() {
        assert_eq!(
            expanded_map("affine_map<(d0, d1) -> (d1)>", 2, &[0, 3]).as_deref(),
            Some("affine_map<(d0, d1, d2, d3) -> (d0, d1 - 3, d3)>")
        );
        assert_eq!(
            expanded_map("affine_map<(d0)[s0] -> (d0 + s0, 0)>", 1, &[-2]).as_deref(),
            Some("affine_map<(d0, d1)[s0] -> (d0 + 2, d1 + s0, 0)>")
        );
        // No dimensions: a constant subscript.
        assert_eq!(
            expanded_map("affine_map<() -> (0)>", 1, &[1]).as_deref(),
            Some("affine_map<(d0) -> (d0 - 1, 0)>")
        );
        assert_eq!(expanded_map("(d0) -> (d0)", 1, &[0]), None);
    }
}
