//! The Python kit's own suite (`python/tests/*.py`, pytest), run by `cargo test` so that the
//! README's one test command covers it, against the wheel a user installs.
//!
//! 1. Builds the kit's one abi3 wheel, once: `maturin build --release` (maturin from
//!    `requirements-build.txt`, in a tools environment kept under `target/python-kit`).
//!    While it compiles, the two environments below are made and given what `pyproject.toml`
//!    declares: installing the wheel then adds the package alone, each requirement being
//!    already met at the version its constraints file pins. No test runs meanwhile, so the
//!    installs compete with the compiler only.
//! 2. Installs that wheel in a fresh virtual environment with every extra, under
//!    `constraints-highest.txt` (the newest protobuf and gRPC the kit declares), and there:
//!    type-checks the package and the examples with mypy (`pyproject.toml` says what), then
//!    a bot written as a user would (`tests/user_bot.py`, outside the source tree) against
//!    the installed package and its declared stub packages; then runs the whole pytest suite
//!    as Python developers run it, `python -m pytest` from `python/`.
//! 3. Installs the same wheel in a second fresh environment under `constraints-lowest.txt`
//!    (the oldest protobuf and gRPC the kit declares), checks that the generated protobuf
//!    modules are what that grpcio-tools makes of `proto/`, and runs the suite but for the
//!    tests that exercise nothing of protobuf's or gRPC's the rest does not (OpenSpiel,
//!    PettingZoo, the examples' processes, the layout, the token files), to keep it quick.
//!
//! The tests start real servers from the workspace's `theboss-server`. Any step that cannot
//! run fails the test: it never skips. The interpreter is `$PYTHON`, else `python3`: Python
//! 3.11 or later (the kit runs on 3.10, but OpenSpiel's wheels need 3.11).

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Instant;

fn run(what: &str, command: &mut Command) {
    let started = Instant::now();
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
    assert!(status.success(), "{what} failed ({status}): {command:?}");
    eprintln!(
        "python kit: {what}: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

fn target_dir(workspace: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
}

/// A virtual environment and how to run its tools.
struct Venv {
    dir: PathBuf,
    kit: PathBuf,
}

impl Venv {
    /// A virtual environment at `dir`: made anew if `fresh`, else kept from earlier runs.
    fn new(python: &str, dir: PathBuf, kit: &Path, fresh: bool) -> Venv {
        if fresh && dir.exists() {
            std::fs::remove_dir_all(&dir)
                .unwrap_or_else(|e| panic!("cannot remove {}: {e}", dir.display()));
        }
        if !dir.join("bin").join("python").exists() {
            run(
                &format!("creating {}", dir.display()),
                Command::new(python).args(["-m", "venv"]).arg(&dir),
            );
        }
        Venv {
            dir,
            kit: kit.to_path_buf(),
        }
    }

    fn python(&self) -> PathBuf {
        self.dir.join("bin").join("python")
    }

    /// A command run as an activated environment would run it: its tools first on the PATH.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let path = std::env::join_paths(std::iter::once(self.dir.join("bin")).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("a PATH");
        let mut command = Command::new(program);
        command
            .env("PATH", path)
            .env("VIRTUAL_ENV", &self.dir)
            .env_remove("PYTHONPATH")
            .current_dir(&self.kit);
        command
    }

    fn pip_install(&self, what: &str, args: &[&str]) {
        run(
            what,
            self.command(self.python())
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(args),
        );
    }

    fn python_module(&self, what: &str, args: &[&str]) {
        run(what, self.command(self.python()).args(args));
    }
}

/// A command running beside the test's own steps; killed if the test fails before it ends.
struct Background {
    what: &'static str,
    child: Child,
    started: Instant,
}

impl Background {
    fn start(what: &'static str, command: &mut Command) -> Background {
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
        Background {
            what,
            child,
            started: Instant::now(),
        }
    }

    /// Waits for the command; fails the test if it failed.
    fn finish(mut self) {
        let status = self
            .child
            .wait()
            .unwrap_or_else(|e| panic!("{}: {e}", self.what));
        assert!(status.success(), "{} failed ({status})", self.what);
        eprintln!(
            "python kit: {}: {:.1} s",
            self.what,
            self.started.elapsed().as_secs_f64()
        );
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // After `finish` the child is reaped already, and both calls do nothing.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes to `out` the requirements `pyproject.toml` declares for the package and `extras`:
/// what an environment can install before the wheel exists.
fn declared_requirements(python: &str, kit: &Path, extras: &[&str], out: &Path) {
    const LIST: &str = "import sys, tomllib\n\
        project = tomllib.load(open('pyproject.toml', 'rb'))['project']\n\
        wanted = list(project['dependencies'])\n\
        for extra in sys.argv[2:]:\n    wanted += project['optional-dependencies'][extra]\n\
        open(sys.argv[1], 'w').write('\\n'.join(wanted) + '\\n')\n";
    run(
        &format!("listing what pyproject.toml declares for {extras:?}"),
        Command::new(python)
            .current_dir(kit)
            .args(["-c", LIST])
            .arg(out)
            .args(extras),
    );
}

/// An environment the wheel is tested in: the extras it is installed with, the tools beside
/// them, and the constraints file that pins every version.
struct Environment {
    name: &'static str,
    /// Which end of the declared ranges, for the log.
    versions: &'static str,
    extras: &'static str,
    tools: &'static [&'static str],
    constraints: &'static str,
}

/// The newest versions the kit declares: mypy and the whole suite run there.
const HIGHEST: Environment = Environment {
    name: "highest",
    versions: "newest",
    extras: "pettingzoo,openspiel,typing,test",
    tools: &["mypy"],
    constraints: "constraints-highest.txt",
};

/// The oldest versions: the generated modules are checked with the grpcio-tools there.
const LOWEST: Environment = Environment {
    name: "lowest",
    versions: "oldest",
    extras: "pettingzoo,test",
    tools: &["grpcio-tools"],
    constraints: "constraints-lowest.txt",
};

impl Environment {
    /// pip's arguments: `what`, then the test requirements and the tools, all under the
    /// constraints.
    fn install_args<'a>(&'a self, what: &[&'a str]) -> Vec<&'a str> {
        let mut args = what.to_vec();
        args.extend_from_slice(&["-r", "requirements-test.txt"]);
        args.extend_from_slice(self.tools);
        args.extend_from_slice(&["-c", self.constraints]);
        args
    }
}

/// The one wheel maturin built into `dir`.
fn wheel_in(dir: &Path) -> PathBuf {
    let wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(
        wheels.len(),
        1,
        "one wheel in {}: {wheels:?}",
        dir.display()
    );
    wheels.into_iter().next().expect("one wheel")
}

#[test]
fn the_python_kit_builds_one_wheel_that_passes_its_tests_at_both_ends_of_its_ranges() {
    let kit = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = kit.parent().expect("python/ is in the workspace");
    let root = target_dir(workspace).join("python-kit");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let started = Instant::now();
    // OpenSpiel publishes wheels for Python 3.11 and later only, and its test must run.
    run(
        "the interpreter is Python 3.11 or later (OpenSpiel's wheels need it; set $PYTHON)",
        Command::new(&python).args([
            "-c",
            "import sys; assert sys.version_info >= (3, 11), sys.version",
        ]),
    );

    // 1. The wheel.
    let tools = Venv::new(&python, root.join("tools"), kit, false);
    tools.pip_install("installing maturin", &["-r", "requirements-build.txt"]);
    let wheels = root.join("wheels");
    if wheels.exists() {
        std::fs::remove_dir_all(&wheels).expect("the old wheels removed");
    }
    let building = Background::start(
        "maturin build --release",
        tools
            .command(tools.dir.join("bin").join("maturin"))
            .args(["build", "--release", "--quiet", "--out"])
            .arg(&wheels),
    );

    // Meanwhile, each environment's requirements but the wheel.
    let prepare = |spec: &Environment| {
        let venv = Venv::new(&python, root.join(spec.name), kit, true);
        let declared = root.join(format!("declared-{}.txt", spec.name));
        let extras: Vec<&str> = spec.extras.split(',').collect();
        declared_requirements(&python, kit, &extras, &declared);
        let declared = declared.to_str().expect("a UTF-8 path");
        venv.pip_install(
            &format!(
                "installing the {} dependencies, while the wheel builds",
                spec.versions
            ),
            &spec.install_args(&["-r", declared]),
        );
        venv
    };
    let highest = prepare(&HIGHEST);
    let lowest = prepare(&LOWEST);
    building.finish();
    let wheel = wheel_in(&wheels);
    let wheel = wheel.to_str().expect("a UTF-8 path");
    // The wheel's own requirements are met already: this adds the package.
    let install_wheel = |venv: &Venv, spec: &Environment| {
        venv.pip_install(
            &format!("installing the wheel ({} dependencies)", spec.versions),
            &spec.install_args(&[&format!("{wheel}[{}]", spec.extras)]),
        );
    };

    // 2. The newest versions: mypy and the whole suite.
    install_wheel(&highest, &HIGHEST);
    highest.python_module(
        "mypy (the package and the examples)",
        &["-m", "mypy", "--no-incremental"],
    );
    // A user's bot, checked where the source tree cannot be seen: against the wheel.
    let outside = root.join("user-bot");
    std::fs::create_dir_all(&outside).expect("a directory for the user's bot");
    std::fs::copy(
        kit.join("tests").join("user_bot.py"),
        outside.join("user_bot.py"),
    )
    .expect("the user's bot copied");
    run(
        "mypy (a user's bot, against the installed wheel)",
        highest
            .command(highest.python())
            .args(["-m", "mypy", "--strict", "--no-incremental", "user_bot.py"])
            .current_dir(&outside),
    );
    highest.python_module(
        "python -m pytest (newest dependencies)",
        &["-m", "pytest", "-q", "-p", "no:cacheprovider"],
    );

    // 3. The oldest versions: the generated modules and the suite.
    install_wheel(&lowest, &LOWEST);
    lowest.python_module(
        "the generated protobuf modules match proto/",
        &["generate_protos.py", "--check"],
    );
    lowest.python_module(
        "python -m pytest (oldest dependencies)",
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--ignore=tests/test_openspiel.py",
            "--ignore=tests/test_examples.py",
            "--ignore=tests/test_env.py",
            "--ignore=tests/test_layout.py",
            "--ignore=tests/test_credentials.py",
        ],
    );
    eprintln!(
        "python kit: {:.0} s in all",
        started.elapsed().as_secs_f64()
    );
}
