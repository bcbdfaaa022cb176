//! Texts of affine maps and memref types, as the printer (`codegen/emit/`)
//! writes and rewrites them: an expression over the tree's rows
//! ([`expr_text`]), an access's map rewritten for an expanded array
//! ([`expanded_map`]) or a box in shared memory ([`shifted_map`]), and the
//! dynamic dimensions of a memref type ([`dynamic_dims`]). Pure functions
//! of strings.

use super::ast::{Div, Row};
use crate::scop::expansion::memref_shape;

/// An affine expression text of `row` over `[params | t | divisions |
/// constant]` (`n` time dimensions; the division columns are the first of
/// `divs`, however many the row has), with the loop dimensions in `dims`
/// (their positions are the map's `d<k>`). A division is printed as
/// `(e) floordiv c`.
pub fn expr_text(
    row: &Row,
    np: usize,
    n: usize,
    divs: &[Div],
    dims: &[usize],
    syms: &[usize],
) -> String {
    let mut terms: Vec<(i64, String)> = Vec::new();
    for (pos, &k) in dims.iter().enumerate() {
        let c = row[np + k];
        if c != 0 {
            terms.push((c, format!("d{pos}")));
        }
    }
    for (pos, &p) in syms.iter().enumerate() {
        let c = row[p];
        if c != 0 {
            terms.push((c, format!("s{pos}")));
        }
    }
    let nd = row.len() - 1 - np - n;
    for (j, d) in divs.iter().enumerate().take(nd) {
        let c = row[np + n + j];
        if c != 0 {
            let inner = expr_text(&d.row, np, n, divs, dims, syms);
            terms.push((c, format!("(({inner}) floordiv {})", d.den)));
        }
    }
    // A parameter that is not a symbol of the map would silently drop out
    // of it (another cell, another bound): a bug, never to reach the IR.
    assert!(
        (0..np).all(|p| row[p] == 0 || syms.contains(&p)),
        "an affine expression uses a parameter that is not a symbol of its map"
    );
    let c = row[row.len() - 1];
    let mut out = String::new();
    for (i, (coef, name)) in terms.iter().enumerate() {
        let mag = coef.unsigned_abs();
        let body = if mag == 1 {
            name.clone()
        } else {
            format!("{name} * {mag}")
        };
        if i == 0 {
            out.push_str(&if *coef < 0 { format!("-{body}") } else { body });
        } else {
            out.push_str(&format!(" {} {body}", if *coef < 0 { "-" } else { "+" }));
        }
    }
    if out.is_empty() {
        out = c.to_string();
    } else if c != 0 {
        out.push_str(&format!(
            " {} {}",
            if c < 0 { "-" } else { "+" },
            c.unsigned_abs()
        ));
    }
    out
}

/// The parts of a map's text `affine_map<(d0, …)[s…] -> (r…)>`: its number
/// of dimensions, its symbols' text (`[s0, …]`, or empty) and its results'
/// text inside the parentheses.
fn parts(text: &str) -> Option<(usize, &str, &str)> {
    let inner = text.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (head, results) = inner.split_once(" -> ")?;
    let close = head.find(')')?;
    let dims = head.strip_prefix('(')?.get(..close - 1)?;
    let n = if dims.trim().is_empty() {
        0
    } else {
        dims.split(',').count()
    };
    let body = results.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some((n, &head[close + 1..], body))
}

/// `affine_map<(d0, …, d{n-1}){syms} -> (results…)>`.
fn map_of(n: usize, syms: &str, results: &[String]) -> String {
    let dims: Vec<String> = (0..n).map(|k| format!("d{k}")).collect();
    format!(
        "affine_map<({}){syms} -> ({})>",
        dims.join(", "),
        results.join(", ")
    )
}

/// The map text of `old`'s results `from..from + count`, over the same
/// dimensions and symbols (an `affine.parallel`'s bounds of one
/// dimension, a group of its maps' results).
pub fn selected_results(old: &str, from: usize, count: usize) -> Option<String> {
    let results = map_results(old)?;
    let chosen = results.get(from..from.checked_add(count)?)?;
    (count > 0).then(|| with_results(old, chosen)).flatten()
}

/// The results' texts of the map text `old` (none for `() -> ()`).
pub fn map_results(old: &str) -> Option<Vec<String>> {
    let (_, _, body) = parts(old)?;
    if body.trim().is_empty() {
        return Some(Vec::new());
    }
    Some(results(body).into_iter().map(str::to_string).collect())
}

/// The map text `old` with `new` results, over the same dimensions and
/// symbols.
pub fn with_results(old: &str, new: &[String]) -> Option<String> {
    let (n, syms, _) = parts(old)?;
    Some(map_of(n, syms, new))
}

/// The map text `(d0…)[s…] -> (r…)` of an access, rewritten for `lead`
/// new leading dimensions with results `d_k - lows[k]`, the old dimensions
/// renumbered after them.
pub fn expanded_map(old: &str, lead: usize, lows: &[i64]) -> Option<String> {
    let (n_old, syms, body) = parts(old)?;
    // Renumber d<k> to d<k + lead> in the results.
    let mut shifted = String::new();
    let chars: Vec<char> = body.chars().collect();
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
    if !shifted.trim().is_empty() {
        res.push(shifted);
    }
    Some(map_of(n_old + lead, syms, &res))
}

/// The map text `(d0…)[s…] -> (r_0, …)` of an access rewritten for a box
/// of `r` dimensions: `r` more dimensions (the origin) after the old ones
/// and results `(r_k) - d_{n+k}`; with the old number of dimensions.
pub fn shifted_map(old: &str, r: usize) -> Option<(String, usize)> {
    let (n, syms, body) = parts(old)?;
    let split = results(body);
    if split.len() != r || split.iter().any(|p| p.is_empty()) {
        return None;
    }
    let res: Vec<String> = split
        .iter()
        .enumerate()
        .map(|(k, p)| format!("({p}) - d{}", n + k))
        .collect();
    Some((map_of(n + r, syms, &res), n))
}

/// The results of a map's body, split at the commas outside parentheses.
fn results(body: &str) -> Vec<&str> {
    let mut split = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, ch) in body.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                split.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    split.push(body[start..].trim());
    split
}

/// The map text of an access rewritten for the array with its dimensions
/// in `order` (the new result `k` is the old result `order[k]`: an operand
/// transposed ahead, [`crate::rewrite::layout`]).
pub fn permuted_map(old: &str, order: &[usize]) -> Option<String> {
    let (n, syms, body) = parts(old)?;
    let split = results(body);
    if split.len() != order.len() || split.iter().any(|p| p.is_empty()) {
        return None;
    }
    let res: Vec<String> = order
        .iter()
        .map(|&k| split.get(k).map(|p| p.to_string()))
        .collect::<Option<_>>()?;
    Some(map_of(n, syms, &res))
}

/// The positions of the dynamic dimensions of a memref type's text.
pub fn dynamic_dims(ty: &str) -> Vec<usize> {
    memref_shape(ty)
        .map(|(shape, _)| (0..shape.len()).filter(|&k| shape[k].is_none()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{dynamic_dims, expanded_map, permuted_map, selected_results, shifted_map};

    #[test]
    fn permuted_maps_reorder_the_results() {
        assert_eq!(
            permuted_map(
                "affine_map<(d0, d1, d2)[s0] -> (d2, d0 + s0, (d1 floordiv 2) mod 3)>",
                &[1, 2, 0]
            )
            .as_deref(),
            Some("affine_map<(d0, d1, d2)[s0] -> (d0 + s0, (d1 floordiv 2) mod 3, d2)>")
        );
        assert_eq!(permuted_map("affine_map<(d0) -> (d0, 0)>", &[0]), None);
    }

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

    #[test]
    fn shifted_maps_subtract_the_origin() {
        assert_eq!(
            shifted_map("affine_map<(d0, d1) -> (d0, d1 + 1)>", 2),
            Some((
                "affine_map<(d0, d1, d2, d3) -> ((d0) - d2, (d1 + 1) - d3)>".into(),
                2
            ))
        );
        assert_eq!(
            shifted_map("affine_map<(d0)[s0] -> (d0 floordiv 4, s0)>", 2),
            Some((
                "affine_map<(d0, d1, d2)[s0] -> ((d0 floordiv 4) - d1, (s0) - d2)>".into(),
                1
            ))
        );
        assert_eq!(
            shifted_map("affine_map<() -> (3)>", 1),
            Some(("affine_map<(d0) -> ((3) - d0)>".into(), 0))
        );
        assert_eq!(shifted_map("affine_map<(d0) -> (d0)>", 2), None);
    }

    #[test]
    fn selected_results_keep_dimensions_and_symbols() {
        let bounds = "affine_map<(d0)[s0] -> (0, d0 + 2, s0 floordiv 4)>";
        assert_eq!(
            selected_results(bounds, 1, 2).as_deref(),
            Some("affine_map<(d0)[s0] -> (d0 + 2, s0 floordiv 4)>")
        );
        assert_eq!(
            selected_results(bounds, 0, 1).as_deref(),
            Some("affine_map<(d0)[s0] -> (0)>")
        );
        assert_eq!(
            selected_results("affine_map<() -> (512, 1024)>", 1, 1).as_deref(),
            Some("affine_map<() -> (1024)>")
        );
        // Past the results, or none of them.
        assert_eq!(selected_results(bounds, 2, 2), None);
        assert_eq!(selected_results(bounds, 1, 0), None);
    }

    #[test]
    fn dynamic_dimensions_of_memref_types() {
        assert_eq!(dynamic_dims("memref<?x8x?xf64>"), vec![0, 2]);
        assert_eq!(dynamic_dims("memref<4x4xf32>"), Vec::<usize>::new());
        assert_eq!(dynamic_dims("memref<f64>"), Vec::<usize>::new());
    }
}
