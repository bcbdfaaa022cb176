//! Printing in isl syntax: `[N] -> { S[i, j] : 0 <= i and i < N }`,
//! `{ S[i] -> A[o0] : o0 = i + 1 }`, pieces joined by `;`, locals as
//! `exists (e0, e1 : ...)`.
//!
//! Invariant: the text re-parses (here and in isl) to the same integer
//! points. Names are made unique and valid: a dim whose stored name is
//! empty, clashes with an earlier name or is an isl keyword gets a fresh
//! generated name, so printing never silently equates two columns.

use super::constraint::BasicRel;
use super::union::UnionRel;

const KEYWORDS: &[&str] = &[
    "and", "or", "not", "exists", "floor", "ceil", "mod", "min", "max", "true", "false", "infty",
    "implies", "NaN",
];

fn valid_ident(s: &str) -> bool {
    let mut ch = s.chars();
    match ch.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    ch.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'') && !KEYWORDS.contains(&s)
}

fn pick(name: &str, base: &str, used: &mut Vec<String>) -> String {
    if valid_ident(name) && !used.iter().any(|u| u == name) {
        used.push(name.to_string());
        return name.to_string();
    }
    let mut k = 0;
    loop {
        let cand = format!("{base}{k}");
        if !used.contains(&cand) {
            used.push(cand.clone());
            return cand;
        }
        k += 1;
    }
}

fn term(c: u64, name: &str) -> String {
    if c == 1 {
        name.to_string()
    } else {
        format!("{c}*{name}")
    }
}

/// Returns one row as `lhs >= rhs` or `lhs = rhs` with positive terms on each side.
pub fn print_row(row: &[i64], names: &[String], eq: bool) -> String {
    let n = row.len() - 1;
    let (mut lhs, mut rhs) = (Vec::new(), Vec::new());
    for (c, name) in row[..n].iter().zip(names) {
        if *c > 0 {
            lhs.push(term(c.unsigned_abs(), name));
        } else if *c < 0 {
            rhs.push(term(c.unsigned_abs(), name));
        }
    }
    let k = row[n];
    if k > 0 {
        lhs.push(k.to_string());
    } else if k < 0 {
        rhs.push(k.unsigned_abs().to_string());
    }
    let side = |v: Vec<String>| {
        if v.is_empty() {
            "0".to_string()
        } else {
            v.join(" + ")
        }
    };
    format!(
        "{} {} {}",
        side(lhs),
        if eq { "=" } else { ">=" },
        side(rhs)
    )
}

/// Returns the column names used when printing one piece (params, dims, locals).
pub fn column_names(b: &BasicRel) -> Vec<String> {
    let sp = b.space();
    let mut used: Vec<String> = Vec::new();
    let mut names = Vec::with_capacity(b.n_col());
    for p in &sp.params {
        names.push(pick(p, "p", &mut used));
    }
    if let Some(t) = &sp.input {
        for d in &t.dims {
            names.push(pick(d, "i", &mut used));
        }
    }
    for d in &sp.output.dims {
        names.push(pick(d, "o", &mut used));
    }
    for _ in 0..b.n_local() {
        names.push(pick("", "e", &mut used));
    }
    names
}

/// Returns the piece without its parameter prefix and braces.
pub fn print_piece(b: &BasicRel) -> String {
    let sp = b.space();
    let names = column_names(b);
    let np = sp.n_param();
    let tuple = |name: &Option<String>, from: usize, n: usize| {
        format!(
            "{}[{}]",
            name.clone().unwrap_or_default(),
            names[from..from + n].join(", ")
        )
    };
    let mut s = String::new();
    let mut off = np;
    if let Some(t) = &sp.input {
        s.push_str(&tuple(&t.name, off, t.len()));
        s.push_str(" -> ");
        off += t.len();
    }
    s.push_str(&tuple(&sp.output.name, off, sp.n_out()));
    if b.is_obviously_empty() {
        s.push_str(" : false");
        return s;
    }
    let mut cons: Vec<String> = b.eqs().iter().map(|r| print_row(r, &names, true)).collect();
    cons.extend(b.ineqs().iter().map(|r| print_row(r, &names, false)));
    if cons.is_empty() {
        return s;
    }
    let body = cons.join(" and ");
    if b.n_local() > 0 {
        let locals = names[sp.n_total()..].join(", ");
        s.push_str(&format!(" : exists ({locals} : {body})"));
    } else {
        s.push_str(&format!(" : {body}"));
    }
    s
}

/// Returns the union in isl syntax.
pub fn print_union(u: &UnionRel) -> String {
    let mut s = String::new();
    if !u.params().is_empty() {
        s.push_str(&format!("[{}] -> ", u.params().join(", ")));
    }
    let pieces: Vec<String> = u.pieces().iter().map(print_piece).collect();
    if pieces.is_empty() {
        s.push_str("{  }");
    } else {
        s.push_str(&format!("{{ {} }}", pieces.join("; ")));
    }
    s
}
