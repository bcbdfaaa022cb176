//! Per-thread memos of pure functions of constraint rows: the scheduler's
//! retries of one SCoP (a cut for coincidence, `fuse=no`, index-set splits,
//! embeddings) and similar SCoPs ask the same questions again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;
use std::thread::LocalKey;

/// Entries past which a memo of this thread starts afresh (a bound on its
/// memory over a long run).
pub const MEMO_ENTRIES: usize = 4096;

/// Looks `key` up in `memo`, or computes and keeps it. An error is not
/// kept: the next call computes again (a deadline passed, say).
pub fn memoized<K, V, E>(
    memo: &'static LocalKey<RefCell<HashMap<K, V>>>,
    key: K,
    make: impl FnOnce(&K) -> Result<V, E>,
) -> Result<V, E>
where
    K: Hash + Eq,
    V: Clone,
{
    if let Some(v) = memo.with_borrow(|m| m.get(&key).cloned()) {
        return Ok(v);
    }
    let v = make(&key)?;
    memo.with_borrow_mut(|m| {
        if m.len() >= MEMO_ENTRIES {
            m.clear();
        }
        m.insert(key, v.clone());
    });
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::MathError;

    thread_local! {
        static SQUARES: RefCell<HashMap<u64, u64>> = Default::default();
    }

    #[test]
    fn memo_computes_each_key_once_and_stays_bounded() {
        let calls = std::cell::Cell::new(0);
        let square = |k: &u64| -> Result<u64, MathError> {
            calls.set(calls.get() + 1);
            Ok(k * k)
        };
        assert_eq!(memoized(&SQUARES, 7, square), Ok(49));
        assert_eq!(memoized(&SQUARES, 7, square), Ok(49));
        assert_eq!(calls.get(), 1);
        // An error is not kept: the next call computes again.
        let fail = |_: &u64| -> Result<u64, MathError> { Err(MathError::Deadline) };
        assert_eq!(memoized(&SQUARES, 8, fail), Err(MathError::Deadline));
        assert_eq!(memoized(&SQUARES, 8, square), Ok(64));
        assert_eq!(calls.get(), 2);
        for k in 0..3 * MEMO_ENTRIES as u64 {
            memoized(&SQUARES, k, square).unwrap();
            assert!(SQUARES.with_borrow(|m| m.len()) <= MEMO_ENTRIES);
        }
    }
}
