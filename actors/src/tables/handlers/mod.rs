//! The project actor's side of owner Tables, one file per message (or small group): `data.page` and `data.compare`, `selection.set` and the snapshot's selections, `selection.read`.

pub mod page;
pub mod selection;
pub mod selection_read;

pub use page::{page_rows, DataCompare, DataPage, Join};
pub use selection::{ListSelections, SetSelection};
pub use selection_read::ReadSelection;
