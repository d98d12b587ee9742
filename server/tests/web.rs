//! The reference web front end (`web/`): its generated code checked against the protos, its
//! linter (`npm run lint`) and unit tests (`npm run test:unit`, Node's test runner, no
//! browser) run, its TypeScript type-checked and built, and `web/tests/browser.mjs` driving
//! Debian's Chromium (puppeteer-core, no browser download) against this crate's server binary,
//! which the script starts, kills and restarts itself: a new player's first game, a whole game
//! by clicks watched by a visitor without an account, a phone by touch, the replay, the
//! account, and axe-core's accessibility checks. Screenshots and the server's log go to
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

/// Installs `web/`'s packages from its lockfile, unless every package it names is there (a
/// checkout whose `node_modules` predates a new dependency is installed again).
fn install() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(web_dir().join("package.json")).unwrap()).unwrap();
    let missing = ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|k| manifest[k].as_object())
        .flat_map(|deps| deps.keys())
        .any(|name| !web_dir().join("node_modules").join(name).exists());
    if missing {
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

    // Linted, unit-tested (the client package built first), type-checked and bundled.
    npm(&["run", "lint"]);
    npm(&["run", "test:unit"]);
    npm(&["run", "build"]);
    for built in ["index.js", "index.d.ts", "session.d.ts"] {
        assert!(
            web_dir().join("client/dist").join(built).exists(),
            "@theboss/client is published as compiled JS with declarations: client/dist/{built}"
        );
    }
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(web_dir().join("dist/build.json")).expect("the build's report"),
    )
    .unwrap();
    let gzipped = report["js_gzip_bytes"].as_u64().unwrap();
    assert!(
        gzipped < 100 * 1024,
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
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();

    assert_eq!(
        summary["problems"],
        serde_json::json!([]),
        "console errors or failed requests"
    );
    assert_eq!(
        summary["axe"],
        serde_json::json!([]),
        "axe-core's serious or critical violations"
    );

    // A new player's first game: one typed name, then register, create, a card (sent by
    // itself after the countdown that allows an undo).
    let first = &summary["first_game"];
    assert!(first["clicks"].as_u64().unwrap() <= 3, "{first}");
    assert_eq!(first["typed_names"], 1, "{first}");
    assert!(text(&first["countdown"]).contains("Undo"), "{first}");

    // The whole game by clicks: every turn of Alice's in the log once, the round-end screen
    // with what each location paid or did, the final standings explained.
    let game = &summary["click_game"];
    assert!(game["turns"].as_u64().unwrap() >= 15, "{game}");
    assert_eq!(game["alice_turns_in_log"], game["turns"], "{game}");
    let round_end = &game["round_end"];
    assert_eq!(
        text(&round_end["title"]),
        "Round 1: the result",
        "{round_end}"
    );
    let lines: Vec<String> = round_end["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    assert!(lines.iter().any(|l| l.contains("Chicago")), "{lines:?}");
    assert!(
        lines.last().unwrap().starts_with("Money won this round"),
        "{lines:?}"
    );
    // A sanction taken says what it did, never "+$0".
    for line in &lines {
        if ["Revolver", "Prison", "Hospital", "Banished"]
            .iter()
            .any(|s| line.contains(&format!("took {s}")))
        {
            assert!(!line.contains("$0"), "{line}");
        }
    }
    assert!(
        round_end["cards_turned"].as_u64().unwrap() >= 6,
        "{round_end}"
    );
    let standings = &game["standings"];
    assert!(
        text(&standings["title"]).starts_with("Game over:"),
        "{standings}"
    );
    let rows = standings["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{standings}");
    let money: Vec<u64> = rows
        .iter()
        .map(|r| text(&r[2]).trim_start_matches('$').parse().unwrap())
        .collect();
    assert!(money.windows(2).all(|w| w[0] >= w[1]), "{standings}");
    assert_eq!(standings["explained"], true, "{standings}");
    // Each tie on money is explained.
    let ties = money.windows(2).filter(|w| w[0] == w[1]).count();
    assert_eq!(
        standings["tie_breaks"].as_array().unwrap().len(),
        ties,
        "{standings}"
    );
    // The chosen placement is pressed, to the eye and to a screen reader (the attribute was
    // once empty, so `[aria-pressed="true"]` never matched).
    assert_eq!(game["placement_pressed"][1], "solid", "{game}");
    assert_eq!(text(&game["title_on_turn"]), "▶ Your turn · The Boss");
    // The visitor had no account, watched from the shared link, and saw nothing hidden.
    assert!(
        text(&game["visitor_header"]).contains("register to play"),
        "{game}"
    );
    assert!(
        text(&game["visitor_status"]).contains("game over"),
        "{game}"
    );
    assert_eq!(game["visitor_hand_cards"], 0, "{game}");
    assert_eq!(
        game["visitor_hand_cards_shown"],
        serde_json::json!([]),
        "{game}"
    );
    assert_eq!(game["visitor_deals_with_faces"], 0, "{game}");
    assert!(
        game["visitor_face_downs_seen"].as_u64().unwrap() > 0,
        "{game}"
    );

    // The history answered 400 ms late while three bots moved first: the page still came to
    // the person's turn (it once stayed on a bot's turn for ever). Resigning stopped it.
    let late = &summary["late_history"];
    assert_eq!(late["state"], "your-turn", "{late}");
    assert_eq!(late["moves_before"], 3, "{late}");
    assert!(
        text(&summary["resign"]["status"]).contains("stopped without a result"),
        "{summary}"
    );

    // A turn sent while the server was down: "reconnecting…", then played once; the keyboard.
    let restart = &summary["restart"];
    assert!(
        text(&restart["reconnecting"]).contains("reconnecting"),
        "{restart}"
    );
    assert_eq!(restart["key_turns"], 3, "{restart}");
    assert_eq!(restart["turns_in_page_log"], 4, "{restart}");
    assert_eq!(restart["turns_in_history"], 4, "{restart}");

    // Joining a table that had just filled says so, with a way to watch it (it once did
    // nothing, with an uncaught error in the console).
    let join = &summary["join_filled"];
    assert!(text(&join["error"]).contains("already started"), "{join}");
    assert_eq!(join["watch_link"], true, "{join}");

    // From the page to rated games and challenges: two players queued for the ladder sit at
    // one table; a challenge sent from a player's page, accepted in the lobby, seats both.
    for (what, v) in [
        ("queue", &summary["queue"]),
        ("challenge", &summary["challenge"]),
    ] {
        assert_eq!(v["same_table"], true, "{what}: {v}");
    }
    assert!(
        text(&summary["queue"]["queued"][0]).contains("Waiting for opponents"),
        "{summary}"
    );
    assert!(
        text(&summary["challenge"]["sent"]).starts_with("Challenge sent"),
        "{summary}"
    );

    // The replay: verified, stepped, the log following the step, the rounds to jump to.
    let replay = &summary["replay"];
    assert!(text(&replay["verified"]).contains("verified"), "{replay}");
    assert!(
        text(&replay["tampered"]).contains("NOT verified"),
        "{replay}"
    );
    assert!(
        text(&replay["stepped"]).starts_with("step 2 of "),
        "{replay}"
    );
    assert_eq!(replay["at_last"], "visible", "{replay}");
    assert_eq!(replay["at_round_2"]["log"], "visible", "{replay}");
    assert!(
        text(&replay["at_round_2"]["round"]).starts_with("Round 2"),
        "{replay}"
    );
    assert_eq!(replay["board_shows_gangsters_or_cards"], true, "{replay}");
    assert_eq!(summary["own_page"], "Alice", "{summary}");

    // A phone: turns tapped with the hand on screen; nothing wider than it (the ladder and
    // the replay once scrolled sideways at 390 px).
    let phone = &summary["phone"];
    assert_eq!(phone["turns"], 3, "{phone}");
    assert_eq!(
        phone["hand_in_reach"],
        serde_json::json!([true, true, true]),
        "{phone}"
    );
    for page in ["table", "ladder", "replay"] {
        assert!(
            phone[format!("{page}_overflow_px")].as_i64().unwrap() <= 0,
            "{phone}"
        );
    }

    // The account: names as long as the server allows (it once took 40 of the server's 32),
    // signing out only once the recovery code is shown, and back with it.
    let account = &summary["account"];
    assert_eq!(account["typed_name_length"], 32, "{account}");
    assert_eq!(account["warning_shows_code"], true, "{account}");
    assert_eq!(account["back_as"], "Frank", "{account}");
    assert!(
        summary["rules"]["headings"].as_u64().unwrap() >= 8,
        "{summary}"
    );
    assert_eq!(summary["rules"]["mentions_chicago"], true, "{summary}");
    assert_eq!(
        summary["bad_link"],
        "That is not a game this service knows: check the link."
    );
    // A missing asset is not kept a year (it once was, as immutable).
    assert_eq!(summary["missing_asset"]["status"], 404);
    assert_eq!(summary["missing_asset"]["cache_control"], "no-store");

    for shot in [
        "lobby",
        "first-turn",
        "table-mid-round",
        "table-visitor",
        "round-end",
        "game-end",
        "replay",
        "ladder",
        "table-390-touch",
        "replay-390",
    ] {
        assert!(
            out.join(format!("{shot}.png")).exists(),
            "screenshot {shot}"
        );
    }
}
