//! Notebook plots: R's one device kept for the session (pages a cell starts, a redraw of an
//! earlier page), the per-cell limit, and Python's figures saved and closed after each cell.

use crate::support::notebook::Live;
use rho_kernels::notebook::{Language, PlotRef, RuntimeLimits, SessionEvent};

fn is_png(path: &std::path::Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89PNG"))
}

#[test]
fn a_sourced_r_script_with_two_plots_keeps_both() {
    let mut s = Live::start(Language::R);
    std::fs::write(
        s.dir.path().join("two.R"),
        "plot(1:10)\nplot(10:1, col = 'red')\n",
    )
    .unwrap();
    let c = s.run("source('two.R')");
    let plots = c.plots();
    assert_eq!(plots.len(), 2, "{:?}", c.events);
    assert_eq!((plots[0].page, plots[1].page), (1, 2));
    assert_ne!(plots[0].sha256, plots[1].sha256);
    for p in &plots {
        assert!(is_png(&p.path), "{p:?}");
        assert_eq!(p.bytes, std::fs::metadata(&p.path).unwrap().len());
        assert!(p.replaces.is_none());
    }
}

#[test]
fn an_r_cell_drawing_over_an_earlier_plot_reports_the_page_it_changed() {
    let mut s = Live::start(Language::R);
    let first = s.run("plot(1:10)");
    assert_eq!(first.plots().len(), 1);
    let c = s.run("abline(h = 5, col = 'blue')");
    let plots = c.plots();
    assert_eq!(plots.len(), 1, "{:?}", c.events);
    assert_eq!(plots[0].page, 1);
    assert_eq!(plots[0].replaces, Some(PlotRef { cell: 1, page: 1 }));
    assert_ne!(plots[0].sha256, first.plots()[0].sha256);
    let c = s.run("x <- 1");
    assert!(
        c.plots().is_empty(),
        "a cell that draws nothing reports no plot"
    );
    let c = s.run("plot(3:1)");
    assert_eq!(c.plots()[0].page, 2);
    assert_eq!(c.plots()[0].replaces, None);
}

#[test]
fn plots_over_max_plots_are_dropped_with_a_note() {
    let limits = RuntimeLimits {
        max_plots: 2,
        ..Default::default()
    };
    let mut s = Live::start_with(Language::R, limits);
    let c = s.run("for (i in 1:4) plot(i)");
    assert_eq!(c.plots().len(), 2);
    let notes: Vec<&SessionEvent> = c
        .events
        .iter()
        .filter(
            |e| matches!(e, SessionEvent::PlotDropped { note, .. } if note.contains("maxPlots")),
        )
        .collect();
    assert_eq!(notes.len(), 2, "{:?}", c.events);
}

#[test]
fn python_figures_are_saved_and_closed_after_each_cell() {
    let mut s = Live::start(Language::Python);
    let c = s.run(
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.figure()\nplt.plot([3, 2, 1])\n",
    );
    let plots = c.plots();
    assert_eq!(plots.len(), 2, "{:?}", c.events);
    assert!(plots.iter().all(|p| is_png(&p.path)));
    let c = s.run("print(len(plt.get_fignums()))");
    assert_eq!(c.text(), "0\n");
    assert!(c.plots().is_empty());
}

#[test]
fn a_plot_file_over_max_plot_bytes_is_dropped_and_deleted() {
    let limits = RuntimeLimits {
        max_plot_bytes: 200,
        ..Default::default()
    };
    let mut s = Live::start_with(Language::R, limits);
    let c = s.run("plot(rnorm(500))");
    assert!(c.plots().is_empty());
    assert!(c.events.iter().any(
        |e| matches!(e, SessionEvent::PlotDropped { note, .. } if note.contains("maxPlotBytes"))
    ));
    let left = std::fs::read_dir(s.dir.path().join(".rho/plugins/kernel/sessions/s1/plots"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "the dropped file is deleted");
}
