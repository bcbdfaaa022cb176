//! Stages on the loop tree ([`super::ast`]): what code generation decides
//! on the tree after scanning it out of the plan, one file each. So far:
//! the GPU's promotions to shared memory ([`promote`]).

pub mod promote;
