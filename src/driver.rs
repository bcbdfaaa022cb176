//! Command-line checks that `polyrs-opt` makes before handing over to MLIR's
//! `MlirOptMain`.
//!
//! MLIR reports a bad value for a pass option in two lines, the second an
//! empty `<unknown>:0: error:`. For the polyrs passes the driver checks the
//! option text first — from `--poly-foo=...` flags and from `poly-foo{...}` in
//! `--pass-pipeline` — and reports one clear line instead. Everything else
//! (upstream passes, files, parsing) is MLIR's own handling.

use crate::passes::{find, OptionKind, PassDef, PASSES};

/// Checks the options of every polyrs pass named on the command line; `Err`
/// is a one-line message for the user.
///
/// ```
/// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// assert!(polyrs::driver::check_args(&args(&["polyrs-opt", "--poly-detect-scops=min-depth=2"])).is_ok());
/// let err = polyrs::driver::check_args(&args(&["polyrs-opt", "--poly-detect-scops=min-depth=x"]));
/// assert!(err.unwrap_err().contains("invalid value 'x' for option 'min-depth'"));
/// ```
pub fn check_args(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let flag = arg.trim_start_matches('-');
        if arg.starts_with('-') && flag.starts_with("pass-pipeline") {
            let pipeline = match flag.split_once('=') {
                Some((_, p)) => p.to_string(),
                None => {
                    i += 1;
                    args.get(i).cloned().unwrap_or_default()
                }
            };
            check_pipeline(&pipeline)?;
        } else if arg.starts_with('-') {
            let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
            if let Some(def) = find(name) {
                check_options(def, strip_quotes(value))?;
            }
        }
        i += 1;
    }
    Ok(())
}

fn strip_quotes(s: &str) -> &str {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// Finds `poly-xxx{...}` in a textual pipeline and checks the option text.
fn check_pipeline(pipeline: &str) -> Result<(), String> {
    for def in PASSES {
        let mut rest = pipeline;
        while let Some(pos) = rest.find(def.argument) {
            let before_ok = pos == 0
                || !rest[..pos]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
            let after = &rest[pos + def.argument.len()..];
            let after_ok =
                !after.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_');
            if before_ok && after_ok {
                if let Some(body) = after.strip_prefix('{') {
                    let end = matching_brace(body).ok_or_else(|| {
                        format!(
                            "polyrs-opt: unterminated option list for pass '{}'",
                            def.argument
                        )
                    })?;
                    check_options(def, &body[..end])?;
                }
            }
            rest = after;
        }
    }
    Ok(())
}

/// Returns the index of the `}` closing a list that starts just after `{`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') if depth == 0 => return Some(i),
            (None, '}') => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Splits MLIR pass option text (`a=1 b={x y} c="s t"`) into `(key, value)`.
fn split_options(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote = None;
    let mut push = |cur: &mut String| {
        let item = std::mem::take(cur);
        if item.trim().is_empty() {
            return;
        }
        match item.split_once('=') {
            Some((k, v)) => out.push((
                k.trim().to_string(),
                Some(strip_quotes(v).trim_matches(['{', '}']).to_string()),
            )),
            None => out.push((item.trim().to_string(), None)),
        }
    };
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), _) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, '{') => {
                depth += 1;
                cur.push(c);
            }
            (None, '}') => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            (None, c) if c.is_whitespace() && depth == 0 => push(&mut cur),
            _ => cur.push(c),
        }
    }
    push(&mut cur);
    out
}

/// Checks one pass's option text against its declared options.
pub fn check_options(def: &PassDef, text: &str) -> Result<(), String> {
    for (key, value) in split_options(text) {
        let Some(opt) = def.options.iter().find(|o| o.argument == key) else {
            let known: Vec<&str> = def.options.iter().map(|o| o.argument).collect();
            return Err(format!(
                "polyrs-opt: pass '{}' has no option '{key}' (options: {})",
                def.argument,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        let value = match (value, opt.kind) {
            (Some(v), _) => v,
            (None, OptionKind::Bool) => "true".to_string(),
            (None, _) => {
                return Err(format!(
                    "polyrs-opt: option '{key}' of pass '{}' needs a value ({key}=...)",
                    def.argument
                ))
            }
        };
        let expected = match opt.kind {
            OptionKind::Bool => ["true", "false", "1", "0"]
                .contains(&value.as_str())
                .then_some(())
                .ok_or("true or false"),
            OptionKind::Int => value
                .trim()
                .parse::<i64>()
                .map(drop)
                .map_err(|_| "an integer"),
            OptionKind::UInt => value
                .trim()
                .parse::<u64>()
                .map(drop)
                .map_err(|_| "a non-negative integer"),
            OptionKind::String => Ok(()),
            OptionKind::IntList => value
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .try_for_each(|s| s.trim().parse::<i64>().map(drop))
                .map_err(|_| "a comma-separated list of integers"),
        };
        if let Err(what) = expected {
            return Err(format!(
                "polyrs-opt: invalid value '{value}' for option '{key}' of pass '{}': expected {what}",
                def.argument
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn accepts_valid_options() {
        assert!(check_args(&args(&[
            "polyrs-opt",
            "--poly-detect-scops=min-depth=2 report-rejected=false"
        ]))
        .is_ok());
        assert!(check_args(&args(&[
            "x",
            "--pass-pipeline=builtin.module(func.func(poly-detect-scops{min-depth=3}))"
        ]))
        .is_ok());
        assert!(check_args(&args(&["x", "--poly-detect-scops", "f.mlir"])).is_ok());
        assert!(check_args(&args(&["x", "--poly-detect-scops=report-rejected"])).is_ok());
    }

    #[test]
    fn rejects_bad_values_in_flags_and_pipelines() {
        let e = check_args(&args(&["x", "--poly-detect-scops=min-depth=abc"])).unwrap_err();
        assert_eq!(
            e,
            "polyrs-opt: invalid value 'abc' for option 'min-depth' of pass 'poly-detect-scops': expected a non-negative integer"
        );
        let e = check_args(&args(&[
            "x",
            "--pass-pipeline",
            "builtin.module(func.func(poly-detect-scops{min-depth=-1}))",
        ]))
        .unwrap_err();
        assert!(e.contains("'-1'"), "{e}");
        let e = check_args(&args(&["x", "--poly-detect-scops=bogus=1"])).unwrap_err();
        assert!(e.contains("has no option 'bogus'"), "{e}");
        let e = check_args(&args(&["x", "--poly-detect-scops=min-depth"])).unwrap_err();
        assert!(e.contains("needs a value"), "{e}");
    }

    #[test]
    fn ignores_other_passes_and_names_that_only_contain_ours() {
        assert!(check_args(&args(&["x", "--affine-loop-tile=tile-size=abc"])).is_ok());
        assert!(check_args(&args(&[
            "x",
            "--pass-pipeline=builtin.module(xpoly-detect-scops{min-depth=abc})"
        ]))
        .is_ok());
    }

    #[test]
    fn splits_nested_and_quoted_values() {
        let v = split_options("a=1 b={x y} c=\"s t\" d");
        assert_eq!(
            v,
            vec![
                ("a".into(), Some("1".into())),
                ("b".into(), Some("x y".into())),
                ("c".into(), Some("s t".into())),
                ("d".into(), None)
            ]
        );
    }
}
