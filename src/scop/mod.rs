//! Static control parts: detection now; the polyhedral model (domains,
//! accesses, schedules) is built here by later stages.

pub mod detect;
