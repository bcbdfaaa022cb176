//! Static control parts: detection ([`detect`]), affine forms ([`form`]) and
//! the polyhedral model — domains, accesses, original schedule ([`model`]),
//! which operations form the statements' bodies ([`body`]), and its rewrites: embedding ([`embed`]), privatization ([`privatize`]) and
//! index-set splitting ([`split`]).

pub mod body;
pub mod detect;
pub mod embed;
pub mod form;
pub mod model;
pub mod privatize;
pub mod split;
