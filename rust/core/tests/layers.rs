//! The core's modules in layers: each uses only modules of its own layer or
//! below, and the modules of one layer use each other without a cycle.
//!
//! The table [`LAYERS`] is the rule, bottom first; `lib.rs`'s `//!` states it
//! for readers.  The test reads every source file under `src/`: a file
//! `src/x.rs`, `src/x/mod.rs` or any file under `src/x/` is module `x`.  A
//! reference is a path `crate::x` (or `$crate::x` in a macro, or a `super::`
//! climbing out to the crate root) in code, as a `use` or inline; grouped
//! uses (`crate::{a, b::c}`) count each member.  Comments and string
//! literals do not count: a doc link may point anywhere.  Test code counts
//! like any other code: a module's tests use only what the module may use
//! (so the test support, `testing`, which runs searches, serves the
//! modules above the search only; lower modules test against `naive`).
//! Names that `lib.rs` re-exports at the crate root (`crate::find_pairs`)
//! count as their module.
//!
//! The test fails on a reference to a module of a higher layer, on a cycle
//! among the modules of one layer, on a module missing from the table (a
//! new module must be placed), and on a `crate::` path that names no module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom first: each module may use its own layer and those
/// below.  A name may precede its module (it is then simply unused).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves",
        &[
            "bigint", "dim", "forked", "hints", "key", "memory", "morton", "naive", "narrow",
            "nearly", "param", "stop", "world",
        ],
    ),
    ("pools", &["par", "scratch"]),
    (
        "building blocks",
        &["check", "lists", "pairs", "pairset", "radix"],
    ),
    (
        "kernels",
        &[
            "brute", "cells", "count", "cutoff", "grid", "quadtree", "sweep",
        ],
    ),
    ("search", &["search", "testing", "tiles"]),
    ("periodic", &["periodic"]),
    ("kept searches", &["coherent", "few", "kept_search"]),
    ("casts", &["rays", "swept"]),
    ("moving tree", &["tree"]),
];

/// One source file: the module it belongs to, its path below `src/` (for
/// messages and for resolving `super::`), and its text.
struct Source {
    module: String,
    path: String,
    text: String,
}

/// A reference from a file to a module of the crate, with its line.
#[derive(Debug, PartialEq)]
struct Use {
    target: String,
    line: usize,
}

/// The code of `text` with comments and string and char literals blanked
/// (newlines kept, so line numbers stay).
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !is_ident(c[i - 1]))
        {
            // raw string r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &c[i..j.min(c.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' {
            // a char literal ('x', '\n', '\u{..}'); otherwise a lifetime
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &c[i..=e] {
                        blank(&mut out, ch);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn is_ident(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_'
}

/// The identifier starting at `i` (after spaces), and where it ends.
fn ident_at(c: &[char], mut i: usize) -> (String, usize) {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    let start = i;
    while i < c.len() && is_ident(c[i]) {
        i += 1;
    }
    (c[start..i].iter().collect(), i)
}

/// The first identifier of each member of the group opening at `c[i] == '{'`.
fn group_members(c: &[char], i: usize) -> Vec<String> {
    let mut members = Vec::new();
    let mut depth = 0;
    let mut at_member = true;
    let mut j = i;
    while j < c.len() {
        match c[j] {
            '{' => {
                depth += 1;
                at_member = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_member = true,
            ch if at_member && depth == 1 && is_ident(ch) => {
                let (name, end) = ident_at(c, j);
                members.push(name);
                at_member = false;
                j = end;
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    members
}

/// Depth of a file's module below the crate root: 1 for `x.rs` and
/// `x/mod.rs`, 2 for `x/y.rs`, and so on.
fn file_depth(path: &str) -> usize {
    let parts: Vec<&str> = path.split('/').collect();
    parts.len() - usize::from(parts.last() == Some(&"mod.rs"))
}

/// Whether the `{` at `c[i]` opens an inline module (`mod name {`).
fn opens_mod(c: &[char], i: usize) -> bool {
    let mut j = i;
    let back = |j: &mut usize, want: fn(char) -> bool| {
        while *j > 0 && want(c[*j - 1]) {
            *j -= 1;
        }
    };
    back(&mut j, char::is_whitespace);
    let name_end = j;
    back(&mut j, is_ident);
    if j == name_end {
        return false;
    }
    back(&mut j, char::is_whitespace);
    j >= 3 && c[j - 3..j] == ['m', 'o', 'd'] && (j == 3 || !is_ident(c[j - 4]))
}

/// Every reference of one file to a crate-level name (`crate::x`, or
/// `super::` climbing to the crate root), with its line.
fn uses_of(path: &str, text: &str) -> Vec<Use> {
    let code = code_only(text);
    let c: Vec<char> = code.chars().collect();
    let depth0 = file_depth(path);
    let mut out = Vec::new();
    let mut line = 1;
    // inline `mod` blocks open: each one's brace depth
    let mut mods: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let mut i = 0;
    let push = |out: &mut Vec<Use>, c: &[char], at: usize, line: usize| {
        if c.get(at) == Some(&'{') {
            for target in group_members(c, at) {
                out.push(Use { target, line });
            }
        } else {
            let (target, _) = ident_at(c, at);
            out.push(Use { target, line });
        }
    };
    while i < c.len() {
        let ch = c[i];
        let word_start = i == 0 || !(is_ident(c[i - 1]) || c[i - 1] == ':');
        if ch == '\n' {
            line += 1;
        } else if ch == '{' {
            braces += 1;
            if opens_mod(&c, i) {
                mods.push(braces);
            }
        } else if ch == '}' {
            if mods.last() == Some(&braces) {
                mods.pop();
            }
            braces = braces.saturating_sub(1);
        } else if word_start && c[i..].starts_with(&['c', 'r', 'a', 't', 'e', ':', ':']) {
            push(&mut out, &c, i + 7, line);
            i += 7;
            continue;
        } else if word_start && c[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            let mut j = i;
            let mut ups = 0;
            while c[j..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                ups += 1;
                j += 7;
            }
            if ups >= depth0 + mods.len() {
                push(&mut out, &c, j, line);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The crate-root names `lib.rs` re-exports (`pub use m::{A, B}`), each
/// with its module.
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let code = code_only(lib);
    let c: Vec<char> = code.chars().collect();
    let mut names = BTreeMap::new();
    for (at, _) in code.match_indices("pub use ") {
        let (module, end) = ident_at(&c, at + 8);
        let end = end + 2; // past "::"
        if c.get(end) == Some(&'{') {
            for name in group_members(&c, end) {
                names.insert(name, module.clone());
            }
        } else {
            names.insert(ident_at(&c, end).0, module);
        }
    }
    names
}

/// What is wrong with the layering of `sources` under `layers` (nothing:
/// an empty list).
fn violations(
    sources: &[Source],
    layers: &[(&str, &[&str])],
    roots: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut layer_of = BTreeMap::new();
    for (k, (_, modules)) in layers.iter().enumerate() {
        for m in modules.iter() {
            layer_of.insert(m.to_string(), k);
        }
    }
    let modules: BTreeSet<&str> = sources.iter().map(|s| s.module.as_str()).collect();
    let mut bad = Vec::new();
    for m in &modules {
        if !layer_of.contains_key(*m) {
            bad.push(format!("module `{m}` is in no layer: place it in LAYERS"));
        }
    }
    // edges within a layer, for the cycle check
    let mut within: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for s in sources {
        let Some(&from) = layer_of.get(&s.module) else {
            continue;
        };
        for u in uses_of(&s.path, &s.text) {
            let target = if modules.contains(u.target.as_str()) {
                u.target.clone()
            } else if let Some(m) = roots.get(&u.target) {
                m.clone()
            } else {
                bad.push(format!(
                    "src/{}:{}: `crate::{}` names no module of the crate",
                    s.path, u.line, u.target
                ));
                continue;
            };
            if target == s.module {
                continue;
            }
            let Some(&to) = layer_of.get(&target) else {
                continue; // reported above
            };
            if to > from {
                bad.push(format!(
                    "src/{}:{}: `{}` ({}) uses `{}` of a higher layer ({})",
                    s.path, u.line, s.module, layers[from].0, target, layers[to].0
                ));
            } else if to == from {
                within.entry(&s.module).or_default().insert(target);
            }
        }
    }
    if let Some(cycle) = find_cycle(&within) {
        bad.push(format!("a cycle within a layer: {}", cycle.join(" -> ")));
    }
    bad
}

/// A cycle of `edges`, as the modules along it (the first repeated last).
fn find_cycle(edges: &BTreeMap<&str, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        edges: &BTreeMap<&str, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(k) = path.iter().position(|p| p == m) {
            let mut cycle = path[k..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        if let Some(c) = visit(m, edges, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

/// Every `.rs` file under `dir`, as paths relative to `root`.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the source folder is readable")
        .map(|e| e.expect("a readable entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under the root");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The crate's source files but `lib.rs`, each with its module.
fn crate_sources() -> (Vec<Source>, String) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &src, &mut paths);
    let mut sources = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(src.join(&path)).expect("a readable source");
        if path == "lib.rs" {
            continue;
        }
        let first = path.split('/').next().expect("a path");
        let module = first.strip_suffix(".rs").unwrap_or(first).to_string();
        sources.push(Source { module, path, text });
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    (sources, lib)
}

#[test]
fn the_core_is_in_layers_with_no_cycle() {
    let (sources, lib) = crate_sources();
    assert!(sources.len() > 20, "found the sources");
    let bad = violations(&sources, LAYERS, &root_names(&lib));
    assert!(bad.is_empty(), "the layers are broken:\n{}", bad.join("\n"));
}

#[test]
fn every_layer_is_named_in_lib_docs() {
    // lib.rs's `//!` states the table for readers: every module appears in it
    let (_, lib) = crate_sources();
    let docs: String = lib
        .lines()
        .filter(|l| l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    for (name, modules) in LAYERS {
        assert!(docs.contains(name), "lib.rs's docs name the layer `{name}`");
        for m in modules.iter() {
            let named = format!("`{m}`");
            assert!(docs.contains(&named), "lib.rs's docs name {named} ({name})");
        }
    }
}

// ---- the checker, on made-up crates ----

fn source(path: &str, text: &str) -> Source {
    let first = path.split('/').next().unwrap();
    Source {
        module: first.strip_suffix(".rs").unwrap_or(first).to_string(),
        path: path.to_string(),
        text: text.to_string(),
    }
}

const TOY: &[(&str, &[&str])] = &[("low", &["a", "b"]), ("high", &["c"])];

fn toy(sources: &[Source]) -> Vec<String> {
    let roots = root_names("pub use c::{Top, Other};\npub use b::Thing;\n");
    violations(sources, TOY, &roots)
}

#[test]
fn checker_accepts_downward_uses() {
    let ok = [
        source("a.rs", "use crate::b::X;\n"),
        source("b.rs", "pub struct X;\n"),
        source(
            "c/mod.rs",
            "use crate::{a, b::X};\nmod part;\nfn f() { crate::Thing; }\n",
        ),
        source(
            "c/part.rs",
            "use super::helper;\nfn g() { super::super::a::f() }\n",
        ),
    ];
    assert_eq!(toy(&ok), Vec::<String>::new());
}

#[test]
fn checker_catches_an_upward_use() {
    let bad = toy(&[
        source("a.rs", "use crate::c::Top;\n"),
        source("b.rs", ""),
        source("c.rs", ""),
    ]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("src/a.rs:1") && bad[0].contains("higher layer"));
}

#[test]
fn checker_catches_upward_uses_in_every_form() {
    let forms = [
        "use crate::{b, c::Top};",                   // a group
        "fn f() { let _ = crate::c::top(); }",       // inline, in code
        "use crate::Top;",                           // a root re-export of c
        "use super::c;",                             // super out of a top-level file
        "mod tests {\n    use super::super::c;\n}",  // from an inline test module
        "macro_rules! m { () => { $crate::c::X } }", // in a macro
    ];
    for form in forms {
        let bad = toy(&[source("a.rs", form), source("b.rs", ""), source("c.rs", "")]);
        assert_eq!(bad.len(), 1, "{form}: {bad:?}");
    }
    // and from a file inside a module's folder
    let bad = toy(&[
        source("a/mod.rs", "mod deep;"),
        source("a/deep.rs", "use super::super::c::X;"),
        source("b.rs", ""),
        source("c.rs", ""),
    ]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("src/a/deep.rs:1"));
}

#[test]
fn checker_ignores_comments_and_strings() {
    let text = "//! See [`crate::c`].\n/// [`crate::c::Top`]\n/* crate::c */\n\
                fn f() -> &'static str { \"crate::c\" }\nconst Q: char = '\"';\n";
    assert_eq!(
        toy(&[source("a.rs", text), source("b.rs", ""), source("c.rs", "")]),
        Vec::<String>::new()
    );
}

#[test]
fn checker_catches_a_cycle_within_a_layer() {
    let bad = toy(&[
        source("a.rs", "use crate::b;\n"),
        source("b.rs", "fn f() { crate::a::g() }\n"),
    ]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("cycle") && bad[0].contains("a -> b -> a"));
}

#[test]
fn checker_catches_an_unplaced_module_and_an_unknown_name() {
    let bad = toy(&[source("a.rs", ""), source("new.rs", "")]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("`new` is in no layer"));
    let bad = toy(&[source("a.rs", "use crate::nowhere::X;\n")]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("names no module"));
}
