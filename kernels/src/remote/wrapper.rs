//! The remote wrapper (REMOTE.md "Client death"): a one-line launch command that reads the
//! session's setup script from its stdin and sources it; the script writes Rho's runner files
//! into a private folder, starts the runner as the leader of its own process group (`setsid`),
//! passes stdin on to the runner's command pipe, and kills the whole group when stdin ends
//! (the local ssh or srun died, or Rho ended the session) or when the runner ends.
//!
//! Stdout carries, after whatever the login printed, one wrap frame
//! `STX "RHO" nonce "#0 " {"t":"wrap","pgid":N,"job":"J"} ETX` and then the runner's own stream.
//! Needs a POSIX sh, GNU `head -c` (it never reads past its count), `mktemp`, `mkfifo` and
//! `setsid` (util-linux) on the server (decision 0531).

use super::ssh::quote;
use super::PlaceError;

/// What the wrapper runs: the interpreter on the server and the runner's files.
pub struct Launch<'a> {
    /// The interpreter as the server names it (`Rscript`, `/opt/R/bin/Rscript`, `python3`).
    pub program: &'a str,
    /// Arguments before the runner's path (`-u` for Python).
    pub program_args: &'a [&'a str],
    /// `(name, text)`; the first one is the runner the interpreter runs.
    pub files: &'a [(&'a str, &'a str)],
    /// Environment the runner gets (`MPLBACKEND=Agg` unless set, `PYTHONUNBUFFERED=1`).
    pub env: &'a [(&'a str, &'a str)],
    /// The folder the session works in (the login's folder when none).
    pub folder: Option<&'a str>,
    pub nonce: &'a str,
    /// The runner's limits as JSON (the `limits` of its settings file).
    pub limits_json: &'a str,
}

/// Exit codes of the wrapper itself (before the runner runs), with what they mean.
pub const WRAPPER_EXITS: &[(i32, &str)] = &[
    (
        90,
        "mktemp could not make the session's folder on the server",
    ),
    (
        91,
        "the server did not receive the whole setup script (GNU head -c is needed)",
    ),
    (
        92,
        "the session's folder on the server has a name JSON cannot carry",
    ),
    (93, "setsid (util-linux) is missing on the server"),
    (94, "mkfifo failed on the server"),
    (
        95,
        "the session's folder on the server could not be entered",
    ),
];

/// The setup script the launch line sources (the payload sent first on stdin).
pub fn setup_script(l: &Launch<'_>) -> Result<String, PlaceError> {
    let mut s = String::from("umask 077\n");
    for (name, text) in l.files {
        if name.contains(['/', '\'', '"', ' ']) {
            return Err(PlaceError::Invalid(format!("runner file name {name:?}")));
        }
        let end = format!("RHOEND{}", l.nonce);
        if text.lines().any(|line| line == end) {
            return Err(PlaceError::Invalid(format!("{name} holds the line {end}")));
        }
        s.push_str(&format!("cat > \"$d/{name}\" <<'{end}'\n{text}"));
        if !text.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&end);
        s.push('\n');
    }
    let fail = |code: i32, message: &str| {
        format!("{{ echo \"rho: {message}\" >&2; rm -rf \"$d\"; exit {code}; }}")
    };
    s.push_str(&format!(
        "case $d in *'\"'*|*'\\'*) {};; esac\n",
        fail(92, "the session folder $d cannot be named in JSON")
    ));
    s.push_str(&format!(
        "printf '{{\"nonce\":\"%s\",\"stateDir\":\"%s\",\"limits\":%s}}' {} \"$d\" {} > \"$d/config.json\"\n",
        quote(l.nonce)?,
        quote(l.limits_json)?
    ));
    s.push_str(&format!(
        "command -v setsid >/dev/null 2>&1 || {}\n",
        fail(93, "setsid (util-linux) is missing on this server")
    ));
    s.push_str(&format!(
        "mkfifo -m 600 \"$d/commands\" || {}\n",
        fail(94, "mkfifo failed")
    ));
    // Read and write: never blocks, and the pipe never reads EOF while the wrapper holds it.
    s.push_str("exec 3<>\"$d/commands\" 4<&0\n");
    if let Some(folder) = l.folder {
        s.push_str(&format!(
            "cd -- {} || {}\n",
            quote(folder)?,
            fail(
                95,
                &format!(
                    "cannot enter {}",
                    folder.replace(['"', '`', '$', '\\'], "?")
                )
            )
        ));
    }
    for (k, v) in l.env {
        if !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(PlaceError::Invalid(format!("environment name {k:?}")));
        }
        s.push_str(&format!("{k}=${{{k}:-{}}}; export {k}\n", quote(v)?));
    }
    let mut argv = vec![quote(l.program)?];
    for a in l.program_args {
        argv.push(quote(a)?);
    }
    let runner = l
        .files
        .first()
        .map(|(n, _)| *n)
        .ok_or_else(|| PlaceError::Invalid("no runner file".into()))?;
    argv.push(format!("\"$d/{runner}\""));
    argv.push("\"$d/commands\"".into());
    argv.push("\"$d/config.json\"".into());
    // The runner leads a new session and process group; its first words are the wrap frame.
    s.push_str(&format!(
        "setsid sh -c 'printf \"\\002RHO%s#0 {{\\\"t\\\":\\\"wrap\\\",\\\"pgid\\\":%s,\\\"job\\\":\\\"%s\\\"}}\\003\" \"$1\" \"$$\" \"${{SLURM_JOB_ID:-}}\"; shift; exec \"$@\"' rho {} {} 3<&- 4<&- </dev/null &\n",
        quote(l.nonce)?,
        argv.join(" ")
    ));
    s.push_str("pg=$!\n");
    // stdin goes on to the runner's pipe; when it ends, the whole group goes.
    s.push_str(
        "{ cat <&4 >&3 4<&-; kill -KILL \"-$pg\"; } </dev/null >/dev/null 2>&1 &\ncp=$!\nexec 4<&-\n",
    );
    // Ended from outside (Slurm's cancel, a hang-up): the group and the folder go first.
    s.push_str(
        "trap 'kill -KILL \"-$pg\" 2>/dev/null; kill -KILL \"$cp\" 2>/dev/null; rm -rf \"$d\"; exit 143' TERM HUP\n",
    );
    s.push_str(
        "wait \"$pg\"; rc=$?\nkill -KILL \"-$pg\" 2>/dev/null\nkill -KILL \"$cp\" 2>/dev/null\nexec 3<&-\nrm -rf \"$d\"\nexit \"$rc\"\n",
    );
    Ok(s)
}

/// The one-line command that makes the folder, reads `payload` bytes of setup script from
/// stdin and sources it.
pub fn launch_line(payload: usize) -> String {
    format!(
        "d=$(mktemp -d \"${{TMPDIR:-/tmp}}/rho-session.XXXXXXXX\") || exit 90; head -c {payload} > \"$d/setup.sh\"; [ \"$(wc -c < \"$d/setup.sh\")\" -eq {payload} ] || {{ rm -rf \"$d\"; exit 91; }}; . \"$d/setup.sh\""
    )
}

/// The wrap frame's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrap {
    /// The runner's process group on the server.
    pub pgid: u32,
    /// `SLURM_JOB_ID` where the runner runs (empty outside Slurm).
    pub job: String,
}

/// Parses the wrap frame's JSON.
pub fn parse_wrap(json: &str) -> Option<Wrap> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    if v.get("t")?.as_str()? != "wrap" {
        return None;
    }
    Some(Wrap {
        pgid: u32::try_from(v.get("pgid")?.as_u64()?).ok()?,
        job: v.get("job")?.as_str()?.to_string(),
    })
}

/// What a wrapper's own exit code means, if it is one of them.
pub fn wrapper_exit(code: i32) -> Option<&'static str> {
    WRAPPER_EXITS
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, m)| *m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_names_each_file_and_refuses_a_delimiter_inside() {
        let l = Launch {
            program: "Rscript",
            program_args: &[],
            files: &[("runner.R", "cat(1)\n"), ("inspect.R", "x <- 'a'")],
            env: &[("MPLBACKEND", "Agg")],
            folder: Some("/data/it's"),
            nonce: "abc",
            limits_json: "{\"maxPlots\":8}",
        };
        let s = setup_script(&l).unwrap();
        assert!(s.contains("cat > \"$d/runner.R\" <<'RHOENDabc'\ncat(1)\nRHOENDabc\n"));
        assert!(s.contains("x <- 'a'\nRHOENDabc\n"));
        assert!(s.contains("cd -- '/data/it'\\''s'"));
        assert!(s.contains("'Rscript' \"$d/runner.R\" \"$d/commands\" \"$d/config.json\""));
        let bad = Launch {
            files: &[("runner.R", "RHOENDabc\n")],
            ..l
        };
        assert!(setup_script(&bad).is_err());
        assert!(!launch_line(10).contains('\n'));
        assert_eq!(
            parse_wrap("{\"t\":\"wrap\",\"pgid\":12,\"job\":\"\"}"),
            Some(Wrap {
                pgid: 12,
                job: String::new()
            })
        );
    }
}
