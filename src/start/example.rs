//! The example project shipped on a new default state: a small CSV, an R script and a README.

use std::path::Path;

const CSV: &str = "sample,group,dose,response\ns01,control,0,1.2\ns02,control,0,0.9\ns03,control,0,1.1\ns04,treated,5,2.4\ns05,treated,5,2.9\ns06,treated,5,2.6\ns07,treated,10,3.8\ns08,treated,10,4.1\n";

const SCRIPT: &str = r#"# Fits response ~ dose on data.csv and writes a summary and a figure.
# Run it with Rscript, or through Rho's managed r.execute action; the first argument is the
# output folder (created here), as Rho passes it.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[[1]] else "artifacts"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
d <- read.csv("data.csv")
fit <- lm(response ~ dose, data = d)
write.csv(data.frame(term = names(coef(fit)), estimate = unname(coef(fit))),
          file.path(out, "coefficients.csv"), row.names = FALSE)
png(file.path(out, "dose-response.png"), width = 640, height = 480)
plot(d$dose, d$response, xlab = "dose", ylab = "response", main = "Dose response")
abline(fit)
invisible(dev.off())
"#;

const README: &str = "# Example project\n\nA small dose-response data set (`data.csv`) and an R script (`analysis.R`) that fits a line\nand draws a figure. Open it in Rho, ask your Agent about it, or run the script:\n\n    Rscript analysis.R artifacts\n\nEverything you and your Agent change here is journaled in `.rho/` and survives a crash.\n";

/// Writes the example files into a new project folder.
pub(crate) fn write_files(dir: &Path) -> std::io::Result<()> {
    for (name, text) in [
        ("data.csv", CSV),
        ("analysis.R", SCRIPT),
        ("README.md", README),
    ] {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}
