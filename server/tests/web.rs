//! The reference web front end (`web/`) in a real browser: its TypeScript is type-checked and
//! built, its generated code checked against the protos, and `web/tests/browser.mjs` drives
//! Debian's Chromium (puppeteer-core, no browser download) against this crate's server binary,
//! which the script starts, kills and restarts itself. Screenshots and the server's log go to
//! `target/web-artifacts/`; a failure prints what the page showed and the log's last lines.
//!
//! Needs Node.js and npm (the test installs `web/`'s locked packages once) and Chromium
//! (`/usr/bin/chromium`, or `CHROMIUM`; `.ci/run` installs it when it is missing).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../web")
}

fn npm(args: &[&str]) {
    let status = Command::new("npm")
        .args(args)
        .current_dir(web_dir())
        .status()
        .expect("npm (Node.js) is needed to build and test the web front end");
    assert!(status.success(), "npm {} in web/", args.join(" "));
}

/// Installs `web/`'s packages from its lockfile, unless they are there.
fn install() {
    if !web_dir().join("node_modules/puppeteer-core").exists() {
        npm(&["ci", "--no-audit", "--no-fund"]);
    }
}

/// Every file under `dir`, by path, with its content.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// One test, so that the installation and the build are done once and in order.
#[test]
fn the_web_front_end_builds_from_the_protos_and_plays_in_chromium() {
    install();

    // The checked-in TypeScript is what the protos generate.
    let generated = web_dir().join("client/src/gen");
    let before = files(&generated);
    npm(&["run", "generate"]);
    let after = files(&generated);
    assert!(
        before == after,
        "web/client/src/gen differs from what proto/ generates: commit the output of `npm run generate` in web/"
    );

    // Type-checked and bundled; small enough.
    npm(&["run", "build"]);
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(web_dir().join("dist/build.json")).expect("the build's report"),
    )
    .unwrap();
    let gzipped = report["js_gzip_bytes"].as_u64().unwrap();
    assert!(
        gzipped < 250 * 1024,
        "the app's script is {gzipped} bytes gzipped"
    );

    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists(),
        "Chromium is needed at {chromium} (apt-get install chromium, or set CHROMIUM); .ci/run installs it"
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/web-artifacts");
    let output = Command::new("node")
        .arg("tests/browser.mjs")
        .args(["--server", env!("CARGO_BIN_EXE_theboss-server")])
        .args(["--web", "dist"])
        .arg("--out")
        .arg(&out)
        .args(["--chromium", &chromium])
        .current_dir(web_dir())
        .output()
        .expect("node runs the browser test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("a summary");
    eprintln!("{summary:#}");

    assert_eq!(
        summary["problems"],
        serde_json::json!([]),
        "console errors or failed requests"
    );
    // Played to the end by clicking; the spectator saw the game and nothing hidden.
    let click = &summary["click"];
    assert!(click["turns"].as_u64().unwrap() >= 5, "{click}");
    assert!(
        click["final"].as_str().unwrap().contains("finished"),
        "{click}"
    );
    assert_eq!(click["spectator_hand_cards"], 0, "{click}");
    assert_eq!(
        click["spectator_hand_cards_shown"],
        serde_json::json!([]),
        "{click}"
    );
    assert_eq!(click["spectator_deals_with_faces"], 0, "{click}");
    assert!(
        click["spectator_face_downs_seen"].as_u64().unwrap() > 0,
        "{click}"
    );
    // By keyboard, across a restart (the table opened again while the server was down):
    // every turn once.
    let keyboard = &summary["keyboard"];
    assert_eq!(keyboard["restarted"], true, "{keyboard}");
    assert!(keyboard["turns"].as_u64().unwrap() >= 5, "{keyboard}");
    assert_eq!(
        keyboard["turns_in_page_log"], keyboard["turns"],
        "{keyboard}"
    );
    assert_eq!(
        keyboard["turns_in_history"], keyboard["turns"],
        "{keyboard}"
    );
    assert_eq!(keyboard["shuffle"], "verified", "{keyboard}");
    // The replay checks the shuffle, and catches a tampered seed.
    assert_eq!(summary["replay"]["verified"][0], "verified", "{summary}");
    assert_eq!(summary["replay"]["tampered"][0], "mismatch", "{summary}");
    assert_eq!(
        summary["replay"]["stepped"],
        format!(
            "step 2 of {}",
            summary["replay"]["stepped"]
                .as_str()
                .unwrap()
                .rsplit(' ')
                .next()
                .unwrap()
        )
    );
    // A finished game's table asks for its stream once: the stream's end is the game's
    // (the front end once asked again at once, for as long as the page stayed open).
    assert_eq!(summary["narrow_watch_requests"], 1, "{summary}");
    // Usable at 360 px: nothing wider than the screen.
    assert!(
        summary["narrow_overflow_px"].as_i64().unwrap() <= 0,
        "{summary}"
    );
    for shot in [
        "lobby",
        "table-player",
        "table-spectator",
        "replay",
        "replay-tampered",
        "ladder",
        "table-360px",
    ] {
        assert!(
            out.join(format!("{shot}.png")).exists(),
            "screenshot {shot}"
        );
    }
}
