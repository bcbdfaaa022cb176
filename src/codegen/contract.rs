//! FMA contraction of the rewritten loop nests (`poly-opt{contract=true}`):
//! every floating-point multiply, add and subtract in them gets the
//! `contract` fast-math flag, which lets LLVM fuse a multiply and the add
//! that uses it into one fused multiply-add (`vfmadd` on x86 with FMA).
//!
//! A fused multiply-add rounds once where the separate operations round
//! twice, so results may differ in their last bits from the input
//! program's: the same freedom `gcc -O3` and `clang -O3` take by default
//! (`-ffp-contract=fast` / `on`), and the reason this is off by default
//! (poly-opt's output is otherwise bit-identical to its input). Nothing
//! else changes: the order of every accumulation chain stays the same.
//!
//! Only a SCoP's own operations are marked, just before the rewrite (the
//! new nests' statement instances are cloned from them); code around the
//! SCoPs keeps its flags. The operations of statements the caller names
//! are left as they are: a statement whose innermost loop waits on its own
//! previous instance (cholesky's `A[i][j] -= A[i][k] * A[j][k]` along `k`,
//! kept in a register) is a chain of dependent operations, bound by their
//! latency; fusing its multiply into the chain's add or subtract lengthens
//! each link from an add's latency to a fused multiply-add's (3 and 4
//! cycles on Zen 4), where the multiply apart runs off the chain.

use std::collections::HashMap;

use crate::ffi::build::{set_attr, Builder};
use crate::ffi::ir::Op;

/// The floating-point operations a multiply-add is made of.
const CONTRACTIBLE: &[&str] = &["arith.mulf", "arith.addf", "arith.subf"];

/// `flags` (the text of an `#arith.fastmath<...>` attribute, or `None`)
/// with `contract` added; `None` when they allow contraction already.
pub fn with_contract(flags: Option<&str>) -> Option<String> {
    with_flag(flags, "contract")
}

/// `flags` (the text of an `#arith.fastmath<...>` attribute, or `None`)
/// with `flag` added; `None` when they have it already (or `fast`, which
/// holds every flag).
pub fn with_flag(flags: Option<&str>, flag: &str) -> Option<String> {
    let mut list: Vec<&str> = flags
        .map(crate::scop::body::fastmath_flags)
        .unwrap_or_default();
    if list.iter().any(|&f| f == flag || f == "fast") {
        return None;
    }
    list.push(flag);
    Some(format!("#arith.fastmath<{}>", list.join(",")))
}

/// The arithmetic that computes the values `stores` store (the stores'
/// operands, back through `arith` operations), by key.
pub fn arithmetic_of(stores: &[Op]) -> HashMap<usize, Op> {
    let mut found = HashMap::new();
    let mut stack: Vec<Op> = Vec::new();
    for st in stores {
        stack.extend(st.operands().iter().filter_map(|v| v.defining_op()));
    }
    while let Some(op) = stack.pop() {
        if !op.name().starts_with("arith.") || found.insert(op.key(), op).is_some() {
            continue;
        }
        stack.extend(op.operands().iter().filter_map(|v| v.defining_op()));
    }
    found
}

/// The value `store` stores is computed with a floating-point multiply.
pub fn multiplies(store: Op) -> bool {
    arithmetic_of(&[store])
        .values()
        .any(|op| op.name() == "arith.mulf")
}

/// Marks every multiply, add and subtract nested in `roots` (and `roots`
/// themselves) as contractible, except the operations in `keep` (keys);
/// returns how many were marked.
pub fn allow_contraction(roots: &[Op], keep: &HashMap<usize, Op>) -> Result<usize, String> {
    let Some(&anchor) = roots.first() else {
        return Ok(0);
    };
    let b = Builder::new(anchor);
    let mut marked = 0;
    let mut stack: Vec<Op> = roots.to_vec();
    while let Some(op) = stack.pop() {
        let name = op.name();
        if CONTRACTIBLE.contains(&name.as_str()) && !keep.contains_key(&op.key()) {
            let now = op.attr(c"fastmath").map(|a| a.text());
            if let Some(text) = with_contract(now.as_deref()) {
                set_attr(op, "fastmath", b.attr(&text)?);
                marked += 1;
            }
        }
        for r in op.regions() {
            for blk in r.blocks() {
                stack.extend(blk.ops());
            }
        }
    }
    Ok(marked)
}

#[cfg(test)]
mod tests {
    use super::{with_contract, with_flag};

    #[test]
    fn contract_joins_the_flags_already_there() {
        assert_eq!(
            with_contract(None).as_deref(),
            Some("#arith.fastmath<contract>")
        );
        assert_eq!(
            with_contract(Some("#arith.fastmath<none>")).as_deref(),
            Some("#arith.fastmath<contract>")
        );
        assert_eq!(
            with_contract(Some("#arith.fastmath<nnan,ninf>")).as_deref(),
            Some("#arith.fastmath<nnan,ninf,contract>")
        );
        assert_eq!(with_contract(Some("#arith.fastmath<contract>")), None);
        assert_eq!(with_contract(Some("#arith.fastmath<fast>")), None);
        assert_eq!(
            with_flag(Some("#arith.fastmath<contract>"), "reassoc").as_deref(),
            Some("#arith.fastmath<contract,reassoc>")
        );
        assert_eq!(with_flag(Some("#arith.fastmath<reassoc>"), "reassoc"), None);
    }
}
