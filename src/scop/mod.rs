//! Static control parts: detection ([`detect`]), affine forms ([`form`]) and
//! the polyhedral model — domains, accesses, original schedule ([`model`]),
//! which operations form the statements' bodies ([`body`]) and the arrays
//! expanded by loops ([`expansion`]). The rewrites of the model that need
//! dependences are in `crate::rewrite`.

pub mod body;
pub mod detect;
pub mod expansion;
pub mod form;
pub mod model;
pub mod text;
