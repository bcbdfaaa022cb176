//! Static control parts: detection ([`detect`]), affine forms ([`form`]) and
//! the polyhedral model — domains, accesses, original schedule ([`model`]).

pub mod detect;
pub mod form;
pub mod model;
pub mod privatize;
