//! Translation validation: the code `poly-opt` emitted in place of a SCoP
//! computes what the SCoP computed.
//!
//! The legality checker proves the schedule; this proves the rewrite, from
//! the plan through code generation, the emitter, the affine folds and the
//! forwarding after them. Both the SCoP's operations (taken before the
//! rewrite) and the new ones are run by an interpreter on symbolic memory
//! ([`symbolic`]): each cell of the SCoP's arrays starts as a symbol of its
//! own, and each computed value is the tree of operations that made it.
//! With the parameters at small values, the two runs must leave every cell
//! with the same tree: the same operations on the same inputs, in the same
//! order, bit for bit. A statement emitted twice, left out, run one loop
//! too high, or a load moved before the store it must follow, leaves some
//! cell with another tree. The iterations of every `affine.parallel` of the
//! new code are also checked to touch no cell another iteration writes.
//!
//! Its reach: the SCoPs whose input runs within a budget of operations
//! (`verify-emit`, per run) at the parameters' values below (the fuzzer's
//! programs, small kernels; not PolyBench's LARGE sizes), on the CPU (the
//! GPU's launches, shared memory and barriers are outside the
//! interpreter); code it cannot follow is not judged (the verdict says
//! so). The values of the parameters: 5, 7, 6, 4, 5, 7, ... in the model's
//! order; dynamic sizes of memrefs: 6.

pub mod program;
pub mod run;
pub mod symbolic;

use std::collections::HashMap;

use crate::ffi::ir::{Op, Val};
use crate::scop::model::Scop;
use program::{translate, Program};
use run::{Buffer, Memory, Run, Stop, Value};
use symbolic::{Exprs, Node, Scalar};

/// The values the parameters take, in turn.
const PARAMETER_VALUES: [i64; 4] = [5, 7, 6, 4];

/// The size of every dynamic dimension of a memref.
const DYNAMIC_SIZE: i64 = 6;

/// The outcome of the check.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The new code computes what the SCoP computed (after this many
    /// operations of the SCoP's run).
    Same {
        /// Operations the SCoP's run took.
        steps: u64,
    },
    /// Not judged: why.
    Skipped(String),
    /// Not judged: the run took more operations than the budget.
    OverBudget(String),
    /// The new code computes something else: where, as a sentence.
    Differs(String),
}

/// The SCoP's run, taken before the rewrite.
pub struct Original {
    exprs: Exprs,
    arrays: Vec<(usize, String)>,
    params: HashMap<usize, i64>,
    /// Number of the model's parameters (the first entries of `params`).
    model_params: usize,
    memory: Memory,
    steps: u64,
    limit: u64,
}

/// The key of the buffer a memref value names: through `memref.cast`.
fn root_key(mut v: Val) -> usize {
    for _ in 0..64 {
        match v.defining_op() {
            Some(d) if d.name() == "memref.cast" => match d.operands().first() {
                Some(&src) => v = src,
                None => break,
            },
            _ => break,
        }
    }
    v.key()
}

impl Original {
    /// Runs the SCoP's operations, at most `limit` of them; `Err` says why
    /// the check cannot be made.
    pub fn run(scop: &Scop, limit: u64) -> Result<Original, Stop> {
        let arrays: Vec<(usize, String)> = scop
            .arrays
            .iter()
            .map(|a| (scop.root_of(a).key(), a.name.clone()))
            .collect();
        let params = scop
            .ir
            .param_values
            .iter()
            .enumerate()
            .map(|(k, v)| (v.key(), PARAMETER_VALUES[k % PARAMETER_VALUES.len()]))
            .collect();
        let mut o = Original {
            exprs: Exprs::default(),
            arrays,
            params,
            model_params: scop.ir.param_values.len(),
            memory: Memory::default(),
            steps: 0,
            limit,
        };
        let program = translate(&scop.ir.ops, &mut o.exprs).map_err(Stop::Skip)?;
        let (memory, steps) = o.execute(&program).map_err(|s| match s {
            // The input's own parallel loops are the user's.
            Stop::Race(why) => Stop::Skip(format!("the input's parallel loop is not: {why}")),
            s => s,
        })?;
        o.memory = memory;
        o.steps = steps;
        Ok(o)
    }

    /// Runs `program` on fresh memory.
    fn execute(&mut self, program: &Program) -> Result<(Memory, u64), Stop> {
        let mut memory = Memory {
            buffers: (0..self.arrays.len())
                .map(|a| Buffer {
                    array: Some(a as u32),
                    cells: symbolic::FxMap::default(),
                })
                .collect(),
        };
        let mut names: Vec<String> = self.arrays.iter().map(|a| a.1.clone()).collect();
        let mut inputs = Vec::new();
        for &(slot, v) in &program.inputs {
            let value = self.input(v, &mut memory, &mut names)?;
            inputs.push((slot, value));
        }
        // Too big a run is not started (its estimate is found without
        // running; a run that turns out longer stops at the limit).
        let limit = self.limit;
        let mut dry = Run::new(
            program,
            inputs.clone(),
            Memory::default(),
            &mut self.exprs,
            u64::MAX,
            Vec::new(),
            DYNAMIC_SIZE,
        );
        let about = dry.estimate(&program.insts);
        if about > limit as f64 {
            return Err(Stop::Budget(format!(
                "about {about:.0} operations to interpret, more than {limit}"
            )));
        }
        let mut run = Run::new(
            program,
            inputs,
            memory,
            &mut self.exprs,
            limit,
            names,
            DYNAMIC_SIZE,
        );
        run.run(&program.insts)?;
        let steps = run.steps;
        Ok((run.memory, steps))
    }

    /// The value of an input: a value defined outside the operations run.
    fn input(
        &mut self,
        v: Val,
        memory: &mut Memory,
        names: &mut Vec<String>,
    ) -> Result<Value, Stop> {
        let ty = v.type_text();
        if ty.starts_with("memref<") {
            let root = root_key(v);
            if let Some(a) = self.arrays.iter().position(|a| a.0 == root) {
                return Ok(Value::Buffer(a as u32));
            }
            // A buffer of the new code's own (a stack buffer at the
            // function's start).
            memory.buffers.push(Buffer::default());
            names.push(format!("buffer{}", memory.buffers.len() - 1));
            return Ok(Value::Buffer(memory.buffers.len() as u32 - 1));
        }
        if let Some(&k) = self.params.get(&v.key()) {
            return Ok(Value::Scalar(Scalar::Int(k)));
        }
        // Constants (the folds put some at the function's start).
        if let Some(def) = v.defining_op().filter(|d| d.name() == "arith.constant") {
            let c = program::constant(def).map_err(Stop::Skip)?;
            return Ok(run::constant_value(&c, &mut self.exprs));
        }
        if ty.starts_with("vector<") {
            return Err(Stop::Skip(format!("a vector defined outside: {ty}")));
        }
        // Another integer (one the model does not use, such as a dead
        // load's subscript): a value of its own, the same in both runs.
        if ty == "index" || (ty.starts_with('i') && ty[1..].parse::<u32>().is_ok()) {
            let k = PARAMETER_VALUES[self.params.len() % PARAMETER_VALUES.len()];
            self.params.insert(v.key(), k);
            return Ok(Value::Scalar(Scalar::Int(k)));
        }
        Ok(Value::Scalar(Scalar::Sym(
            self.exprs.intern(Node::Input(v.key())),
        )))
    }

    /// Runs the operations that replaced the SCoP and compares.
    pub fn compare(mut self, ops: &[Op]) -> Verdict {
        let program = match translate(ops, &mut self.exprs) {
            Ok(p) => p,
            Err(why) => return Verdict::Skipped(format!("the new code: {why}")),
        };
        let memory = match self.execute(&program) {
            Ok((m, _)) => m,
            Err(Stop::Skip(why)) => return Verdict::Skipped(format!("the new code: {why}")),
            Err(Stop::Budget(why)) => return Verdict::OverBudget(format!("the new code: {why}")),
            Err(Stop::Race(why)) => return Verdict::Differs(why),
        };
        let names: Vec<String> = self.arrays.iter().map(|a| a.1.clone()).collect();
        for a in 0..self.arrays.len() {
            let before = &self.memory.buffers[a].cells;
            let after = &memory.buffers[a].cells;
            let mut cells: Vec<symbolic::Cell> =
                before.keys().chain(after.keys()).copied().collect();
            cells.sort();
            cells.dedup();
            for cell in cells {
                let init = |e: &mut Exprs| Scalar::Sym(e.init(a as u32, cell));
                let want = match before.get(&cell) {
                    Some(v) => *v,
                    None => init(&mut self.exprs),
                };
                let got = match after.get(&cell) {
                    Some(v) => *v,
                    None => init(&mut self.exprs),
                };
                if want != got {
                    let text = |e: &mut Exprs, s: Scalar| {
                        let id = e.sym(s);
                        e.text(id, 4, &names)
                    };
                    return Verdict::Differs(format!(
                        "{}{} ends as {} where the input leaves {} (parameters {})",
                        names[a],
                        cell.text(),
                        text(&mut self.exprs, got),
                        text(&mut self.exprs, want),
                        self.parameter_text()
                    ));
                }
            }
        }
        Verdict::Same { steps: self.steps }
    }

    /// The parameters' values, in the model's order.
    fn parameter_text(&self) -> String {
        let n = self.model_params;
        if n == 0 {
            return "none".into();
        }
        let vals: Vec<String> = (0..n)
            .map(|k| PARAMETER_VALUES[k % PARAMETER_VALUES.len()].to_string())
            .collect();
        vals.join(", ")
    }
}
