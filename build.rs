//! Build script: links polyrs against the shared LLVM/MLIR 22 libraries and
//! generates the pass registry from TableGen.
//!
//! 1. Assembles `libMLIR-C.so` (the MLIR C API as one shared library) from
//!    Debian's `libMLIRCAPI*.a` archives; `mlir-sys` links against it. It is
//!    placed in OUT_DIR and copied next to the binaries (`target/<profile>/`),
//!    and every binary, test and the plugin get an rpath to both.
//! 2. Reads `passes/Passes.td` with the `tblgen` crate and writes
//!    `$OUT_DIR/passes.rs`: the module declarations of `src/passes/*.rs`, one
//!    typed options struct per pass, the `PASSES` table that the driver, the
//!    plugin and the docs use, and the Markdown text of `docs/passes.md`.
//! 3. Compiles `cpp/shim.cpp` (pass registration with options, diagnostics,
//!    side-effect queries, the mlir-opt main loop) with the `cc` crate.

use std::env;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

type Res<T> = Result<T, Box<dyn Error>>;

fn main() {
    if let Err(e) = run() {
        eprintln!("polyrs build.rs: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let prefix = PathBuf::from(
        env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()),
    );
    let out = PathBuf::from(env::var("OUT_DIR")?);
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=passes");
    println!("cargo:rerun-if-changed=cpp/shim.cpp");
    println!("cargo:rerun-if-changed=src/passes");

    build_mlir_c(&prefix, &out)?;
    generate_registry(&prefix, &manifest, &out)?;
    compile_shim(&prefix)?;
    compile_cuda_runtime();
    Ok(())
}

/// Builds libMLIR-C.so once per OUT_DIR (the archives do not change between
/// builds) and sets the link search path and rpaths.
fn build_mlir_c(prefix: &Path, out: &Path) -> Res<()> {
    let lib = prefix.join("lib");
    let so = out.join("libMLIR-C.so");
    if !so.exists() {
        let mut archives: Vec<PathBuf> = fs::read_dir(&lib)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libMLIRCAPI") && n.ends_with(".a"))
            })
            .collect();
        archives.sort();
        if archives.is_empty() {
            return Err(format!(
                "no libMLIRCAPI*.a in {} (run scripts/setup.sh: libmlir-22-dev)",
                lib.display()
            )
            .into());
        }
        let status = Command::new("c++")
            .arg("-shared")
            .arg("-o")
            .arg(&so)
            .arg("-Wl,--whole-archive")
            .args(&archives)
            .arg("-Wl,--no-whole-archive")
            .arg(format!("-L{}", lib.display()))
            .args(["-lMLIR", "-lLLVM"])
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .status()?;
        if !status.success() {
            return Err("linking libMLIR-C.so failed".into());
        }
    }
    // Copy next to the binaries so that `$ORIGIN` rpaths find it.
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let dst = profile_dir.join("libMLIR-C.so");
        let stale = match (fs::metadata(&dst), fs::metadata(&so)) {
            (Ok(d), Ok(s)) => d.len() != s.len(),
            _ => true,
        };
        if stale {
            fs::copy(&so, &dst)?;
        }
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    for rpath in [
        "$ORIGIN".to_string(),
        "$ORIGIN/..".to_string(),
        out.display().to_string(),
        lib.display().to_string(),
    ] {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{rpath}");
    }
    Ok(())
}

fn compile_shim(prefix: &Path) -> Res<()> {
    let cxxflags = Command::new(prefix.join("bin/llvm-config"))
        .arg("--cxxflags")
        .output()?;
    let cxxflags = String::from_utf8(cxxflags.stdout)?;
    let mut build = cc::Build::new();
    build.cpp(true).file("cpp/shim.cpp").warnings(false);
    for flag in cxxflags.split_whitespace() {
        // Keep includes, defines and the language standard; drop optimisation
        // and warning choices of the LLVM build itself.
        let keep = flag.starts_with("-I")
            || flag.starts_with("-D")
            || flag.starts_with("-std=")
            || flag == "-fno-exceptions"
            || flag == "-fno-rtti";
        if keep {
            build.flag(flag);
        }
    }
    build.include(prefix.join("include"));
    build.compile("polyrs_shim");
    Ok(())
}

/// Compiles `runtime/mgpu_cuda.c` (MLIR's `mgpu*` runtime on the CUDA
/// driver, loaded with dlopen at run time: no CUDA needed to build) for
/// `polyrs-runner --gpu=cuda`.
fn compile_cuda_runtime() {
    println!("cargo:rerun-if-changed=runtime/mgpu_cuda.c");
    cc::Build::new()
        .file("runtime/mgpu_cuda.c")
        .define("MGPU_NO_PRINT", None)
        .warnings(false)
        .compile("polyrs_mgpu_cuda");
}

/// One option of a pass, as read from Passes.td.
struct OptionSpec {
    cpp_name: String,
    argument: String,
    kind: &'static str,
    rust_type: &'static str,
    default: String,
    description: String,
}

/// One pass, as read from Passes.td.
struct PassSpec {
    def_name: String,
    argument: String,
    summary: String,
    description: String,
    op_name: String,
    module: String,
    options: Vec<OptionSpec>,
}

fn read_passes(prefix: &Path, manifest: &Path) -> Res<Vec<PassSpec>> {
    let td = manifest.join("passes/Passes.td");
    let keeper = tblgen::TableGenParser::new()
        .add_include_directory(&prefix.join("include").display().to_string())
        .add_include_directory(&manifest.join("passes").display().to_string())
        .add_source_file(&td.display().to_string())
        .parse()
        .map_err(|e| format!("cannot parse {}: {e}", td.display()))?;

    let mut passes = Vec::new();
    for def in keeper.all_derived_definitions("PassBase") {
        let def_name = def.name()?.to_string();
        let argument = def.str_value("argument")?.to_string();
        let base = def.str_value("baseClass")?.to_string();
        let op_name = anchor_op(&base).ok_or_else(|| {
            format!("pass {def_name}: unsupported anchor '{base}' (use \"func::FuncOp\", \"ModuleOp\" or none)")
        })?;
        let module = argument
            .strip_prefix("poly-")
            .ok_or_else(|| {
                format!("pass {def_name}: argument '{argument}' must start with 'poly-'")
            })?
            .replace('-', "_");
        let file = manifest.join("src/passes").join(format!("{module}.rs"));
        let dir = manifest.join("src/passes").join(&module).join("mod.rs");
        if !file.exists() && !dir.exists() {
            return Err(format!(
                "pass {def_name} ('{argument}') has no implementation: create {}",
                file.display()
            )
            .into());
        }
        let mut options = Vec::new();
        for opt in def.list_of_defs_value("options")? {
            let is_list = opt.subclass_of("ListOption");
            let ty = opt.str_value("type")?.trim().to_string();
            let (kind, rust_type) = match (is_list, ty.as_str()) {
                (false, "bool") => ("Bool", "bool"),
                (false, "int" | "int32_t" | "int64_t") => ("Int", "i64"),
                (false, "unsigned" | "uint32_t" | "uint64_t" | "size_t") => ("UInt", "u64"),
                (false, "std::string") => ("String", "String"),
                (true, "int" | "int32_t" | "int64_t" | "unsigned") => ("IntList", "Vec<i64>"),
                _ => {
                    return Err(format!(
                        "pass {def_name}: option type '{ty}' (list: {is_list}) is not supported"
                    )
                    .into())
                }
            };
            let mut default = opt.str_value("defaultValue")?.trim().to_string();
            if kind == "String" {
                default = default.trim_matches('"').to_string();
            }
            options.push(OptionSpec {
                cpp_name: opt.str_value("cppName")?.to_string(),
                argument: opt.str_value("argument")?.to_string(),
                kind,
                rust_type,
                default,
                description: opt.str_value("description")?.trim().to_string(),
            });
        }
        passes.push(PassSpec {
            def_name,
            argument,
            summary: def.str_value("summary")?.trim().to_string(),
            description: dedent(def.str_value("description")?),
            op_name: op_name.to_string(),
            module,
            options,
        });
    }
    passes.sort_by(|a, b| a.argument.cmp(&b.argument));
    Ok(passes)
}

fn anchor_op(base: &str) -> Option<&'static str> {
    let inner = base
        .strip_prefix("::mlir::OperationPass<")?
        .strip_suffix('>')?
        .trim()
        .trim_start_matches("::")
        .trim_start_matches("mlir::");
    match inner {
        "" => Some(""),
        "func::FuncOp" => Some("func.func"),
        "ModuleOp" => Some("builtin.module"),
        _ => None,
    }
}

/// Removes the common leading indentation of a TableGen code block.
fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.len() >= indent {
                l[indent..].to_string()
            } else {
                l.trim().to_string()
            }
        })
        .collect();
    body.join("\n").trim().to_string()
}

fn help_text(o: &OptionSpec) -> String {
    if o.kind == "IntList" || o.default.is_empty() {
        o.description.clone()
    } else {
        format!("{} (default: {})", o.description, o.default)
    }
}

/// `text` as plain rustdoc text: brackets and angle brackets (`A[i][k]`,
/// `fastmath<contract>`) escaped, so that they are not read as links or
/// HTML tags.
fn rustdoc_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | ']' | '<' | '>') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn rust_default(o: &OptionSpec) -> Res<String> {
    Ok(match o.kind {
        "Bool" => match o.default.as_str() {
            "true" => "true".into(),
            "false" | "" => "false".into(),
            d => return Err(format!("option {}: bad bool default '{d}'", o.argument).into()),
        },
        "Int" | "UInt" => {
            let d = if o.default.is_empty() {
                "0"
            } else {
                o.default.as_str()
            };
            d.parse::<i128>()
                .map_err(|_| format!("option {}: bad integer default '{d}'", o.argument))?;
            d.to_string()
        }
        "String" => format!("{:?}.to_string()", o.default),
        _ => "Vec::new()".into(),
    })
}

fn generate_registry(prefix: &Path, manifest: &Path, out: &Path) -> Res<()> {
    let passes = read_passes(prefix, manifest)?;
    let mut rs = String::new();
    writeln!(
        rs,
        "// Generated by build.rs from passes/Passes.td. Do not edit.\n"
    )?;
    for p in &passes {
        // `src/passes/<name>.rs`, or `src/passes/<name>/mod.rs` for a pass
        // with stages of its own.
        let mut file = manifest.join("src/passes").join(format!("{}.rs", p.module));
        if !file.exists() {
            file = manifest.join("src/passes").join(&p.module).join("mod.rs");
        }
        writeln!(rs, "#[path = {:?}]", file.display().to_string())?;
        writeln!(rs, "pub mod {};", p.module)?;
    }
    for p in &passes {
        let ty = format!("{}Options", p.def_name);
        writeln!(rs, "\n/// Options of `{}` (from Passes.td).", p.argument)?;
        writeln!(rs, "#[derive(Debug, Clone, PartialEq)]\npub struct {ty} {{")?;
        for o in &p.options {
            writeln!(rs, "    /// {}", rustdoc_escaped(&help_text(o)))?;
            writeln!(rs, "    pub {}: {},", snake(&o.cpp_name), o.rust_type)?;
        }
        writeln!(
            rs,
            "}}\n\n#[allow(clippy::derivable_impls)]\nimpl Default for {ty} {{\n    fn default() -> Self {{\n        Self {{"
        )?;
        for o in &p.options {
            writeln!(
                rs,
                "            {}: {},",
                snake(&o.cpp_name),
                rust_default(o)?
            )?;
        }
        writeln!(rs, "        }}\n    }}\n}}\n")?;
        writeln!(
            rs,
            "#[allow(clippy::never_loop, clippy::match_single_binding)]\nimpl {ty} {{"
        )?;
        writeln!(
            rs,
            "    /// Parses the `name=value` lines the C++ pass hands over."
        )?;
        writeln!(
            rs,
            "    pub fn parse(text: &str) -> Result<Self, crate::passes::OptionError> {{"
        )?;
        writeln!(
            rs,
            "        #[allow(unused_mut)]\n        let mut o = Self::default();"
        )?;
        writeln!(
            rs,
            "        for line in text.lines().filter(|l| !l.is_empty()) {{"
        )?;
        writeln!(
            rs,
            "            #[allow(unused_variables)]\n            let (name, value) = line.split_once('=').unwrap_or((line, \"\"));"
        )?;
        writeln!(rs, "            match name {{")?;
        for o in &p.options {
            writeln!(
                rs,
                "                {:?} => o.{} = crate::passes::parse_option_value::<{}>({:?}, value)?,",
                o.argument,
                snake(&o.cpp_name),
                o.rust_type,
                o.argument
            )?;
        }
        writeln!(rs, "                _ => return Err(crate::passes::OptionError::Unknown(name.to_string())),")?;
        writeln!(rs, "            }}\n        }}\n        Ok(o)\n    }}\n}}")?;
    }
    writeln!(rs, "\n/// Every polyrs pass, sorted by argument.")?;
    writeln!(rs, "pub static PASSES: &[PassDef] = &[")?;
    for p in &passes {
        writeln!(rs, "    PassDef {{")?;
        writeln!(rs, "        argument: {:?},", p.argument)?;
        writeln!(rs, "        name: {:?},", p.def_name)?;
        writeln!(rs, "        summary: {:?},", p.summary)?;
        writeln!(rs, "        description: {:?},", p.description)?;
        writeln!(rs, "        op_name: {:?},", p.op_name)?;
        writeln!(rs, "        options: &[")?;
        for o in &p.options {
            writeln!(
                rs,
                "            OptionDef {{ argument: {:?}, kind: OptionKind::{}, default: {:?}, help: {:?} }},",
                o.argument,
                o.kind,
                o.default,
                help_text(o)
            )?;
        }
        writeln!(rs, "        ],")?;
        writeln!(
            rs,
            "        run: |op, text| {}::run(op, &{}Options::parse(text)?),",
            p.module, p.def_name
        )?;
        writeln!(rs, "    }},")?;
    }
    writeln!(rs, "];")?;
    writeln!(rs, "\n/// The text of docs/passes.md.")?;
    writeln!(
        rs,
        "pub const PASSES_MD: &str = {:?};",
        passes_markdown(&passes)
    )?;
    fs::write(out.join("passes.rs"), rs)?;
    Ok(())
}

fn snake(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else if c == '-' {
            s.push('_');
        } else {
            s.push(c);
        }
    }
    s
}

fn passes_markdown(passes: &[PassSpec]) -> String {
    let mut md = String::new();
    md.push_str("# polyrs passes\n\n");
    md.push_str(
        "<!-- Generated from passes/Passes.td by build.rs. Do not edit: run\n     \
         `POLYRS_BLESS=1 cargo test --test docs` to rewrite this file. -->\n\n",
    );
    md.push_str("| pass | runs on | summary |\n|---|---|---|\n");
    for p in passes {
        let anchor = if p.op_name.is_empty() {
            "any op"
        } else {
            &p.op_name
        };
        md.push_str(&format!(
            "| [`{}`](#{}) | `{}` | {} |\n",
            p.argument, p.argument, anchor, p.summary
        ));
    }
    for p in passes {
        md.push_str(&format!("\n## {}\n\n", p.argument));
        md.push_str(&format!("_{}_\n\n", p.summary));
        md.push_str(&format!("{}\n\n", p.description));
        let anchor = if p.op_name.is_empty() {
            "any operation".to_string()
        } else {
            format!("`{}`", p.op_name)
        };
        // A pass with stages of its own is a directory.
        let source = if std::path::Path::new(&format!("src/passes/{}/mod.rs", p.module)).exists() {
            format!("src/passes/{}/", p.module)
        } else {
            format!("src/passes/{}.rs", p.module)
        };
        md.push_str(&format!("Runs on {anchor}. Implemented in `{source}`.\n"));
        if !p.options.is_empty() {
            md.push_str("\n| option | type | default | meaning |\n|---|---|---|---|\n");
            for o in &p.options {
                let def = if o.default.is_empty() {
                    "(none)".to_string()
                } else {
                    format!("`{}`", o.default)
                };
                md.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    o.argument,
                    o.rust_type.replace('<', "&lt;").replace('>', "&gt;"),
                    def,
                    o.description
                ));
            }
        }
    }
    md
}
