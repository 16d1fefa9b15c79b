//! No source file of the core or of the bindings over [`MOST_LINES`] lines
//! of non-test code:
//! a file is a part a reader holds in mind at once, and one that grows past
//! that is split by concern (as `cells/`, `pairs/` or `tree/` are).
//!
//! A file's non-test code is its lines before its test module (a
//! `#[cfg(test)]` line followed by `mod tests {`), or all its lines; a file
//! named `tests.rs` is a test module of its folder and is not counted.
//! `rust/nontest_lines.sh` prints the same counts.

use std::path::{Path, PathBuf};

/// The most lines of non-test code a source file may have.
const MOST_LINES: usize = 400;

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Lines of `text` before its test module (all of them when it has none).
fn non_test_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    for (k, line) in lines.iter().enumerate() {
        if line.starts_with("mod tests") {
            let attr = lines[..k].iter().rposition(|l| !l.trim().is_empty());
            if let Some(a) = attr.filter(|&a| lines[a].starts_with("#[cfg(test)]")) {
                return lines[..a]
                    .iter()
                    .rposition(|l| !l.trim().is_empty())
                    .map_or(0, |l| l + 1);
            }
        }
    }
    lines.len()
}

#[test]
fn the_counter_stops_at_the_test_module() {
    assert_eq!(non_test_lines("a\nb\n"), 2);
    assert_eq!(
        non_test_lines("a\nb\n\n#[cfg(test)]\nmod tests {\n x\n}\n"),
        2
    );
    // a `mod tests` without the attribute is code
    assert_eq!(non_test_lines("a\nmod tests {\n}\n"), 3);
}

#[test]
fn no_source_file_is_over_the_limit() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut over = Vec::new();
    for src in [crate_dir.join("src"), crate_dir.join("../bindings/src")] {
        over.extend(
            sources(&src)
                .into_iter()
                .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"))
                .filter_map(|p| {
                    let n = non_test_lines(&std::fs::read_to_string(&p).expect("readable source"));
                    let name = p
                        .strip_prefix(crate_dir)
                        .unwrap_or(&p)
                        .display()
                        .to_string();
                    (n > MOST_LINES).then(|| format!("{name}: {n} lines"))
                }),
        );
    }
    assert!(
        over.is_empty(),
        "over {MOST_LINES} lines of non-test code: {over:?}"
    );
}
