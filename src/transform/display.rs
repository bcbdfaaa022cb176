//! The plan as text, for `poly-opt{print-plan=true}` and stage-level tests:
//! each schedule dimension's role, then each statement's final schedule
//! with the definitions of its tile coordinates.

use super::Plan;
use crate::sched::form_text;
use crate::scop::form::Form;
use crate::scop::model::Scop;

impl Plan {
    /// The plan over `scop`'s statement and parameter names. Tile
    /// coordinates and other locals print as `e<k>`, each with the
    /// constraints that define it (`i - 32e0 >= 0`, ...).
    pub fn to_text(&self, scop: &Scop) -> String {
        let mut out = String::new();
        for (k, d) in self.dims.iter().enumerate() {
            let mut flags = Vec::new();
            if d.parallel {
                flags.push("parallel");
            }
            if d.unroll {
                flags.push("unrolled");
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", flags.join(", "))
            };
            out.push_str(&format!("t{k}: {}{flags}\n", d.what));
        }
        for (s, st) in scop.statements.iter().enumerate() {
            let (Some(dims), Some(locals)) =
                (self.schedule.dims.get(s), self.schedule.locals.get(s))
            else {
                continue;
            };
            let text = |f: &Form| form_text(f, &scop.params, &st.iters);
            let forms: Vec<String> = dims.iter().map(text).collect();
            out.push_str(&format!(
                "{}[{}] -> [{}]",
                st.name,
                st.iters.join(", "),
                forms.join(", ")
            ));
            let defs: Vec<String> = locals
                .eqs
                .iter()
                .map(|f| format!("{} = 0", text(f)))
                .chain(locals.ineqs.iter().map(|f| format!("{} >= 0", text(f))))
                .collect();
            if !defs.is_empty() {
                out.push_str(&format!(" : {}", defs.join(" and ")));
            }
            out.push('\n');
        }
        if !self.register_tiles.is_empty() {
            let t: Vec<String> = self
                .register_tiles
                .iter()
                .map(|t| format!("t{} x t{}: {}x{}", t.first, t.first + 1, t.rows, t.columns))
                .collect();
            out.push_str(&format!("register tiles: {}\n", t.join(", ")));
        }
        out
    }
}
