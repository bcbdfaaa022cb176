//! The crate's folders import each other downwards only: this test reads
//! every `crate::<folder>` path in the code (comments aside) of each folder
//! under src/ (a file at src/'s top is a folder of its own), builds the
//! graph of folders, and fails on an import cycle among them, naming a path
//! of imports around it.
//!
//! None remains. The last ones were `transform` <-> `codegen` (the GPU's
//! promotions and the lanes' analysis, now a tree stage and an analysis),
//! `ffi` <-> `passes` (the shim's registration, which the registry now
//! hands its table and entry points) and `scop` <-> `deps`/`sched` (the
//! model's rewrites, now in `rewrite/`, above the scheduler). A cycle that
//! has to stay for a while goes into `KNOWN`, which the test also holds
//! true: it fails when a listed cycle is gone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The cycles still there, each as the sorted set of its folders: none.
const KNOWN: &[&[&str]] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src/") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Folder -> folder -> one file that imports it.
fn graph(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let folders: BTreeSet<String> = std::fs::read_dir(src)
        .expect("readable src/")
        .filter_map(|e| e.ok())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.trim_end_matches(".rs").to_string()
        })
        .collect();
    let mut g: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src/");
        let first = rel.components().next().expect("a path");
        let folder = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if folder == "bin" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        for line in text.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != folder && folders.contains(&name) {
                    g.entry(folder.clone())
                        .or_default()
                        .entry(name)
                        .or_insert_with(|| rel.display().to_string());
                }
            }
        }
    }
    g
}

/// The strongly connected components of more than one folder (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<BTreeSet<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            let k = self.index.len();
            self.index.insert(v, k);
            self.low.insert(v, k);
            self.stack.push(v);
            self.on.insert(v);
            let g = self.g;
            for w in g.get(v).map(|m| m.keys()).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(lw));
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low[v];
                    self.low.insert(v, lv.min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v.as_str());
        }
    }
    t.out
}

/// The imports inside a cycle, as `a -> b (file)` lines.
fn explain(g: &BTreeMap<String, BTreeMap<String, String>>, comp: &BTreeSet<String>) -> String {
    let mut lines = Vec::new();
    for a in comp {
        for (b, file) in g.get(a).into_iter().flatten() {
            if comp.contains(b) {
                lines.push(format!("  {a} -> {b} ({file})"));
            }
        }
    }
    lines.join("\n")
}

#[test]
fn folders_import_downwards() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    // The graph is read at all: the planner uses the model.
    assert!(g.get("transform").is_some_and(|m| m.contains_key("scop")));
    let found = cycles(&g);
    let known: Vec<BTreeSet<String>> = KNOWN
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    for comp in &found {
        assert!(
            known.contains(comp),
            "an import cycle among the folders {comp:?}:\n{}",
            explain(&g, comp)
        );
    }
    for k in &known {
        assert!(
            found.contains(k),
            "the cycle {k:?} is gone: take it out of KNOWN in tests/layers.rs"
        );
    }
}

#[test]
fn a_cycle_is_found() {
    let mut g: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let edge = |g: &mut BTreeMap<String, BTreeMap<String, String>>, a: &str, b: &str| {
        g.entry(a.into())
            .or_default()
            .insert(b.into(), "f.rs".into());
    };
    edge(&mut g, "transform", "codegen");
    edge(&mut g, "codegen", "scop");
    assert!(cycles(&g).is_empty());
    edge(&mut g, "codegen", "transform");
    let found = cycles(&g);
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("transform") && found[0].contains("codegen"));
}
