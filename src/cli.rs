//! A small command-line parser shared by `polyrs-translate` and
//! `polyrs-runner`: `--name=value`, `--name value`, `-o file`, `-O3`, flags,
//! one positional input. Errors are one line for the user.

/// One declared option.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// The name without dashes (`emit`).
    pub name: &'static str,
    /// True when the option takes a value.
    pub takes_value: bool,
    /// Help text, with the default.
    pub help: &'static str,
}

/// The runner's and the translator's flag that keeps LLVM's own lowering
/// of maxima and minima ([`crate::lower::minmax`]).
pub const NO_RANGE_MINMAX: Flag = Flag {
    name: "no-range-minmax",
    takes_value: false,
    help: "keep LLVM's own lowering of arith.maximumf/minimumf (llvm.maximum/minimum) \
           instead of the exact vrange form: three instructions a call, 2n+1 for a vector \
           reduction's chain of n calls, its NaNs joined by vfixupimm (default: vrange where \
           the CPU has AVX-512 DQ and VL)",
};

/// Parsed command line: options in order and the positional arguments.
#[derive(Debug, Default)]
pub struct Parsed {
    /// `(name, value)` pairs; flags have an empty value.
    pub options: Vec<(String, String)>,
    /// Positional arguments.
    pub positional: Vec<String>,
}

impl Parsed {
    /// The last value given for `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// True when flag `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| n == name)
    }
}

/// Parses `args` (without the program name) against `flags`. `-O<n>` is
/// accepted as option `O` with value `n`.
pub fn parse(args: &[String], flags: &[Flag]) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "-" || !a.starts_with('-') {
            p.positional.push(a.clone());
            continue;
        }
        if let Some(level) = a.strip_prefix("-O") {
            if level.len() == 1 && level.chars().all(|c| c.is_ascii_digit()) {
                p.options.push(("O".into(), level.into()));
                continue;
            }
        }
        let body = a.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            return Err(format!("unknown option '{a}' (see --help)"));
        };
        let value = match (flag.takes_value, inline) {
            (true, Some(v)) => v,
            (true, None) => {
                let v = args
                    .get(i)
                    .cloned()
                    .ok_or_else(|| format!("option '{a}' needs a value"))?;
                i += 1;
                v
            }
            (false, None) => String::new(),
            (false, Some(_)) => return Err(format!("option '--{name}' takes no value")),
        };
        p.options.push((name.to_string(), value));
    }
    Ok(p)
}

impl Parsed {
    /// The one positional input file (`-` for stdin).
    pub fn single_input(&self) -> Result<String, String> {
        match self.positional.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err("no input file (use - for stdin)".into()),
            _ => Err("more than one input file".into()),
        }
    }

    /// The optimization level of `-O<n>` (default 3).
    pub fn opt_level(&self) -> Result<u8, String> {
        match self.value("O").unwrap_or("3").parse() {
            Ok(l) if l <= 3 => Ok(l),
            _ => Err("invalid optimization level: expected -O0 to -O3".into()),
        }
    }
}

/// Formats the option list for `--help`.
pub fn help(usage: &str, flags: &[Flag]) -> String {
    let mut s = format!("{usage}\n\nOptions:\n");
    for f in flags {
        let name = if f.takes_value {
            format!("--{}=<value>", f.name)
        } else {
            format!("--{}", f.name)
        };
        s.push_str(&format!("  {name:<26} {}\n", f.help));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] = &[
        Flag {
            name: "emit",
            takes_value: true,
            help: "",
        },
        Flag {
            name: "o",
            takes_value: true,
            help: "",
        },
        Flag {
            name: "no-openmp",
            takes_value: false,
            help: "",
        },
    ];

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_values_flags_levels_and_inputs() {
        let p = parse(
            &args(&["--emit=asm", "-o", "out.s", "-O2", "--no-openmp", "in.mlir"]),
            FLAGS,
        )
        .unwrap();
        assert_eq!(p.value("emit"), Some("asm"));
        assert_eq!(p.value("o"), Some("out.s"));
        assert_eq!(p.value("O"), Some("2"));
        assert!(p.has("no-openmp"));
        assert_eq!(p.positional, vec!["in.mlir".to_string()]);
    }

    #[test]
    fn rejects_unknown_and_missing_values() {
        assert!(parse(&args(&["--bogus"]), FLAGS)
            .unwrap_err()
            .contains("unknown option '--bogus'"));
        assert!(parse(&args(&["-o"]), FLAGS)
            .unwrap_err()
            .contains("needs a value"));
        assert!(parse(&args(&["--no-openmp=1"]), FLAGS)
            .unwrap_err()
            .contains("takes no value"));
    }
}
