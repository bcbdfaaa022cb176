//! Analyses of the model that the plan's heuristics ask, kept apart from the
//! independent checker ([`crate::sched::verify`],
//! [`crate::sched::verify_parallel`]): a heuristic never consults the
//! checker, and the checker re-derives every answer it relies on by its own
//! route, as regalloc2's checker does for its allocator. A bug in an
//! analysis then shows up as a plan the checker rejects, not as a wrong
//! answer the checker shares.

pub mod carried;
pub mod lanes;
pub mod reductions;
pub mod work;
