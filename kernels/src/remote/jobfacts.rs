//! A Slurm job's facts as its sources state them: `scontrol show job -o` lines and the
//! `jobcomp/filetxt` log's lines (the same `Key=Value` form), and whether a job has ended.

/// A job's state as Slurm reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFacts {
    pub job_id: String,
    pub name: String,
    /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, ... (the first word).
    pub state: String,
    /// `ExitCode=N:S`: the exit code and the signal that ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub reason: Option<String>,
    /// Where the answer came from: `scontrol`, `sacct` or `jobcomp`.
    pub source: &'static str,
}

impl JobFacts {
    /// Whether the job has ended (it runs no more and will not run).
    pub fn ended(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "PENDING"
                | "RUNNING"
                | "CONFIGURING"
                | "COMPLETING"
                | "SUSPENDED"
                | "REQUEUED"
                | "RESIZING"
                | "SIGNALING"
                | "STAGE_OUT"
                | "STOPPED"
                | "REQUEUE_HOLD"
                | "REQUEUE_FED"
                | "RESV_DEL_HOLD"
        )
    }
}

/// `Key=Value` fields of `scontrol show job -o` (values hold no spaces but `Reason` may).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line
        .find(&format!(" {key}="))
        .map(|i| i + 1)
        .or_else(|| line.starts_with(&format!("{key}=")).then_some(0))?;
    let rest = &line[at + key.len() + 1..];
    Some(rest.split(' ').next().unwrap_or(rest))
}

pub(crate) fn exit_pair(v: &str) -> (Option<i32>, Option<i32>) {
    let mut p = v.split(':');
    let code = p.next().and_then(|c| c.parse().ok());
    let sig = p.next().and_then(|s| s.parse().ok()).filter(|s| *s != 0);
    (code, sig)
}

/// Parses one `scontrol show job -o` line.
pub fn parse_scontrol(line: &str) -> Option<JobFacts> {
    let (exit_code, signal) = exit_pair(field(line, "ExitCode")?);
    Some(JobFacts {
        job_id: field(line, "JobId")?.to_string(),
        name: field(line, "JobName")?.to_string(),
        state: field(line, "JobState")?.to_string(),
        exit_code,
        signal,
        reason: field(line, "Reason")
            .filter(|r| *r != "None")
            .map(str::to_string),
        source: "scontrol",
    })
}

/// Parses one `jobcomp/filetxt` line (the same `Key=Value` form; `Name=` is the job name).
pub fn parse_jobcomp(line: &str) -> Option<JobFacts> {
    let (exit_code, signal) = exit_pair(field(line, "ExitCode")?);
    Some(JobFacts {
        job_id: field(line, "JobId")?.to_string(),
        name: field(line, "Name")?.to_string(),
        state: field(line, "JobState")?.to_string(),
        exit_code,
        signal,
        reason: None,
        source: "jobcomp",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scontrol_line_gives_the_state_exit_and_name() {
        let l = "JobId=7 JobName=rho-run-a1 UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 RunTime=00:00:01";
        let f = parse_scontrol(l).unwrap();
        assert_eq!(
            (f.job_id.as_str(), f.name.as_str(), f.state.as_str()),
            ("7", "rho-run-a1", "FAILED")
        );
        assert_eq!((f.exit_code, f.signal), (Some(3), None));
        assert!(f.ended());
        let c = parse_jobcomp("JobId=2 UserId=root(0) GroupId=root(0) Name=rho-run-b JobState=CANCELLED Partition=main ExitCode=0:15 ").unwrap();
        assert_eq!((c.name.as_str(), c.signal), ("rho-run-b", Some(15)));
    }
}
