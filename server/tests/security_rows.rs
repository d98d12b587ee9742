//! SECURITY.md stays true: every method of every service the server serves (the contract's,
//! health's and both reflection versions') and every HTTP route has a row, and every row
//! names a test that exists. A surface added without its row, or a row whose test was
//! renamed away, fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use prost::Message;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("server/ is in the repository")
        .to_path_buf()
}

/// `package.Service/Method` of every method of these descriptor sets.
fn methods(sets: &[&[u8]]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for set in sets {
        let set = prost_types::FileDescriptorSet::decode(*set).expect("a descriptor set");
        for file in set.file {
            for service in &file.service {
                for method in &service.method {
                    found.insert(format!(
                        "{}.{}/{}",
                        file.package(),
                        service.name(),
                        method.name()
                    ));
                }
            }
        }
    }
    found
}

/// The table rows of SECURITY.md: each row's surface (its first cell's code, without the
/// method part for HTTP rows) and its test (the last cell's code).
fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repository().join("SECURITY.md")).expect("SECURITY.md");
    let code = |cell: &str| -> Option<String> {
        let start = cell.find('`')? + 1;
        let end = start + cell[start..].find('`')?;
        Some(cell[start..end].to_string())
    };
    text.lines()
        .filter(|line| line.starts_with("| "))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let surface = code(cells.first()?)?;
            let test = code(cells.last()?)?;
            Some((surface, test))
        })
        .collect()
}

#[test]
fn every_rpc_stream_and_route_has_a_row_naming_a_test_that_exists() {
    let rows = rows();
    let surfaces: BTreeSet<&str> = rows.iter().map(|(s, _)| s.as_str()).collect();
    let mut expected = methods(&[
        theboss::FILE_DESCRIPTOR_SET,
        tonic_health::pb::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
    ]);
    expected.extend(
        theboss_server::web::HTTP_SURFACES
            .iter()
            .map(|s| s.to_string()),
    );
    expected.insert(format!("HTTP GET {}", theboss_server::metrics::PATH));
    let missing: Vec<_> = expected
        .iter()
        .filter(|s| !surfaces.contains(s.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "surfaces without a row in SECURITY.md: {missing:?}"
    );
    for (surface, test) in &rows {
        if surface.starts_with("HTTP") || surface.contains('/') {
            let (file, function) = test
                .split_once("::")
                .unwrap_or_else(|| panic!("{surface}: the test is `file::function`: {test}"));
            let source = std::fs::read_to_string(repository().join(file))
                .unwrap_or_else(|e| panic!("{surface}: {file}: {e}"));
            assert!(
                source.contains(&format!("fn {function}(")),
                "{surface}: no test {function} in {file}"
            );
        }
    }
}

/// The routes the server's HTTP routers declare are the ones listed for SECURITY.md: a
/// `.route(` or `.nest(` with another path fails here until its row is written.
#[test]
fn every_route_the_code_declares_is_a_listed_surface() {
    let listed: Vec<String> = theboss_server::web::HTTP_SURFACES
        .iter()
        .map(|s| s.to_string())
        .chain([format!("HTTP GET {}", theboss_server::metrics::PATH)])
        .collect();
    let mut todo = vec![repository().join("server/src")];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            // Only HTTP routers declare routes (`Games::route` is another thing).
            if !source.contains("axum::Router") {
                continue;
            }
            for declared in [".route(", ".nest(", ".route_service(", ".nest_service("] {
                for (at, _) in source.match_indices(declared) {
                    let argument = source[at + declared.len()..]
                        .trim_start()
                        .split([',', ')'])
                        .next()
                        .unwrap_or_default()
                        .trim();
                    let known = match argument {
                        "ASSETS" => "HTTP GET /assets/",
                        "PATH" => "HTTP GET /metrics",
                        other => panic!(
                            "{}: a route ({other}) that SECURITY.md and web::HTTP_SURFACES do not list",
                            path.display()
                        ),
                    };
                    assert!(listed.iter().any(|l| l == known));
                }
            }
        }
    }
}
