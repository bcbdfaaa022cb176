//! The compile-time budget: a per-thread deadline that the long-running
//! loops of the math core check (every simplex pivot, every elimination
//! step), so that a stage of a SCoP's optimization that would run too long
//! stops with [`MathError::Deadline`] instead (the SCoP is then left
//! unchanged with a remark saying which stage ran out).
//!
//! Per thread, because MLIR's pass manager runs functions on several
//! threads; a [`Budget`] guard sets the deadline and restores the previous
//! one when dropped (also on unwinding).

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::int::{MathError, Result};

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// How many checks have found the deadline passed, on this thread.
    static RAN_OUT: Cell<u64> = const { Cell::new(0) };
}

/// A deadline in force until dropped.
#[must_use = "the deadline holds while the guard lives"]
pub struct Budget {
    outer: Option<Instant>,
    /// [`RAN_OUT`] when the guard was made.
    ran_out_before: u64,
}

impl Budget {
    /// Sets a deadline `limit` from now (none: no new limit), within any
    /// deadline already in force.
    pub fn start(limit: Option<Duration>) -> Budget {
        let outer = DEADLINE.get();
        let mine = limit.and_then(|l| Instant::now().checked_add(l));
        let d = match (outer, mine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        DEADLINE.set(d);
        Budget {
            outer,
            ran_out_before: RAN_OUT.get(),
        }
    }

    /// A check has found a deadline passed (this one or one nested inside
    /// it) since the guard was made: what was stopped then (a scheduler's
    /// ILP, a retry) ran out of time.
    pub fn ran_out(&self) -> bool {
        RAN_OUT.get() > self.ran_out_before
    }

    /// Lifts every deadline until dropped (for work that must not stop
    /// half-way, such as rewriting the IR).
    pub fn lift() -> Budget {
        let outer = DEADLINE.get();
        DEADLINE.set(None);
        Budget {
            outer,
            ran_out_before: RAN_OUT.get(),
        }
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        DEADLINE.set(self.outer);
    }
}

/// `Err(MathError::Deadline)` once the deadline in force has passed.
pub fn check() -> Result<()> {
    match DEADLINE.get() {
        Some(d) if Instant::now() >= d => {
            RAN_OUT.set(RAN_OUT.get() + 1);
            Err(MathError::Deadline)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_nest_and_restore() {
        assert_eq!(check(), Ok(()));
        {
            let _outer = Budget::start(Some(Duration::from_secs(3600)));
            assert_eq!(check(), Ok(()));
            {
                let _inner = Budget::start(Some(Duration::ZERO));
                assert_eq!(check(), Err(MathError::Deadline));
                {
                    let _free = Budget::lift();
                    assert_eq!(check(), Ok(()));
                }
                assert_eq!(check(), Err(MathError::Deadline));
            }
            // The inner deadline is gone, the outer one (an hour) holds.
            assert_eq!(check(), Ok(()));
        }
        assert_eq!(check(), Ok(()));
    }

    #[test]
    fn a_guard_knows_whether_a_check_ran_out_under_it() {
        let outer = Budget::start(Some(Duration::from_secs(3600)));
        assert_eq!(check(), Ok(()));
        assert!(!outer.ran_out());
        {
            let inner = Budget::start(Some(Duration::ZERO));
            assert!(!inner.ran_out());
            assert_eq!(check(), Err(MathError::Deadline));
            assert!(inner.ran_out());
        }
        // The nested deadline's run-out counts for the outer guard too, and
        // not for a later one.
        assert!(outer.ran_out());
        let later = Budget::start(None);
        assert!(!later.ran_out());
    }
}
