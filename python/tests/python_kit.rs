//! The Python kit's own suite (`python/tests/*.py`, pytest), run by `cargo test` so that the
//! README's one test command covers it.
//!
//! Builds a virtual environment under `target/python-venv` (Python 3.10 or later from
//! `$PYTHON`, else `python3`), installs the pinned tools of `requirements-dev.txt`, then the
//! package itself as a user would (`pip install ./python[pettingzoo,test]`: maturin builds
//! the extension in release), checks that the generated protobuf modules match `proto/`,
//! type-checks the package and the examples with mypy (`pyproject.toml` says what), and
//! runs pytest, which starts real servers from the workspace's `theboss-server`. Any
//! step that cannot run fails the test: it never skips.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(what: &str, command: &mut Command) {
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
    assert!(status.success(), "{what} failed ({status}): {command:?}");
}

fn target_dir(workspace: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
}

#[test]
fn the_python_kit_builds_installs_and_passes_its_tests() {
    let kit = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = kit.parent().expect("python/ is in the workspace");
    let venv = target_dir(workspace).join("python-venv");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let venv_python = venv.join("bin").join("python");
    if !venv_python.exists() {
        run(
            "creating the virtual environment",
            Command::new(&python).args(["-m", "venv"]).arg(&venv),
        );
    }
    // As an activated environment would: its tools (maturin) first on the PATH.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let pip = |what: &str, args: &[&str]| {
        run(
            what,
            Command::new(&venv_python)
                .env("PATH", &path)
                .env("VIRTUAL_ENV", &venv)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(args)
                .current_dir(kit),
        )
    };
    pip(
        "installing the pinned tools",
        &["-r", "requirements-dev.txt"],
    );
    // The tools are pinned above, so the build needs no isolated environment of its own;
    // pip rebuilds a local directory's package every time.
    pip(
        "pip install ./python",
        &["--no-build-isolation", ".[pettingzoo,test]"],
    );
    run(
        "the generated protobuf modules match proto/",
        Command::new(&venv_python)
            .args(["generate_protos.py", "--check"])
            .current_dir(kit),
    );
    run(
        "mypy (the package and the examples, against the stubs)",
        Command::new(venv.join("bin").join("mypy"))
            .env("PATH", &path)
            .current_dir(kit),
    );
    // The `pytest` script, not `python -m pytest`: the latter puts the working directory on
    // sys.path, where the source tree's `theboss/` (no extension built in it) would shadow
    // the installed package.
    run(
        "pytest",
        Command::new(venv.join("bin").join("pytest"))
            .args(["-q", "-p", "no:cacheprovider", "tests"])
            .env("PATH", &path)
            .current_dir(kit),
    );
}
