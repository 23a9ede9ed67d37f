//! Human-readable text for `rho mcp list` and `rho mcp show`.

use std::io::Write;

use crate::cli::report::ServerReport;

/// One line per server.
pub(super) fn write_list(out: &mut dyn Write, reports: &[ServerReport]) -> std::io::Result<()> {
    if reports.is_empty() {
        return writeln!(out, "No MCP servers configured.");
    }
    let id_w = reports.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
    writeln!(
        out,
        "{:id_w$}  {:15}  {:10}  {:10}  TOOLS",
        "ID", "TRANSPORT", "STATUS", "ERA"
    )?;
    for r in reports {
        let tools = if r.tools.is_empty() && r.era.is_none() {
            "-".to_owned()
        } else {
            r.tools
                .iter()
                .filter(|t| t.exported.is_some())
                .count()
                .to_string()
        };
        writeln!(
            out,
            "{:id_w$}  {:15}  {:10}  {:10}  {}",
            r.id,
            r.transport.as_deref().unwrap_or("?"),
            r.status.as_str(),
            r.era.as_deref().unwrap_or("-"),
            tools
        )?;
        if let Some(e) = &r.error {
            writeln!(out, "{:id_w$}  error: {e}", "")?;
        }
    }
    Ok(())
}

/// The full view of one server.
pub(super) fn write_show(out: &mut dyn Write, r: &ServerReport) -> std::io::Result<()> {
    writeln!(out, "{}", r.id)?;
    writeln!(out, "  source:    {}", r.source)?;
    writeln!(
        out,
        "  transport: {}",
        r.transport.as_deref().unwrap_or("?")
    )?;
    writeln!(out, "  enabled:   {}", r.enabled)?;
    writeln!(out, "  status:    {}", r.status.as_str())?;
    if let Some(era) = &r.era {
        writeln!(out, "  era:       {era}")?;
    }
    if let Some(p) = &r.last_ping {
        writeln!(out, "  last ping: {p}")?;
    }
    if let Some(e) = &r.error {
        writeln!(out, "  error:     {e}")?;
    }
    if !r.tools.is_empty() {
        writeln!(out, "  tools:")?;
        for t in &r.tools {
            match &t.exported {
                Some(x) if *x != t.full_name => writeln!(
                    out,
                    "    {} -> {x} (shortened from {})",
                    t.name, t.full_name
                )?,
                Some(x) => writeln!(out, "    {} -> {x}", t.name)?,
                None => writeln!(out, "    {} (not exported: allow/deny)", t.name)?,
            }
            if let Some(title) = &t.title {
                writeln!(out, "      title: {title}")?;
            }
            for h in &t.hints {
                writeln!(out, "      hint: {h}")?;
            }
        }
    }
    if !r.tools_needing_restart.is_empty() {
        writeln!(out, "  tools added after start (restart needed):")?;
        for t in &r.tools_needing_restart {
            writeln!(out, "    {t}")?;
        }
    }
    if !r.prompts.is_empty() {
        writeln!(out, "  prompts:")?;
        for p in &r.prompts {
            writeln!(out, "    {} {}", p.command, p.arguments.join(" "))?;
        }
    }
    if !r.resources.is_empty() {
        writeln!(out, "  resources:")?;
        for res in &r.resources {
            let tag = if res.template { " · template" } else { "" };
            writeln!(out, "    {} ({}){tag}", res.uri, res.name)?;
        }
    }
    Ok(())
}
