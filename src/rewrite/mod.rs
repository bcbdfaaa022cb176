//! Rewrites of the model that the dependences and schedules justify, each
//! giving the scheduler a new model to try: embedding statements into a
//! sibling loop ([`embed`]), privatizing temporaries by array expansion
//! ([`privatize`]), index-set splitting ([`split`]), steps of a wavefront
//! ([`steps`]) and transposing an operand ahead of the SCoP ([`layout`]).
//! They sit above the model, the dependences and the scheduler, which they
//! use; the model keeps only what it records of them
//! (`crate::scop::expansion`).

pub mod embed;
pub mod layout;
pub mod privatize;
pub mod split;
pub mod steps;
