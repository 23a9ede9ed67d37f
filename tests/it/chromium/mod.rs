//! The browser app in Debian's Chromium against the real binary: scripts/test runs these suites on their own, one at a time, so their budgets time Chromium on idle cores.

mod ui;
mod ui_connect;
mod ui_console;
mod ui_conversation;
mod ui_data;
mod ui_first;
mod ui_layout;
mod ui_live;
mod ui_notebook;
mod ui_projects;
mod ui_resize;
mod ui_work;
