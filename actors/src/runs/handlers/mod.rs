//! The project actor's side of owner r: one file per message (or small group).

pub mod export;
pub mod output;
pub mod state;
pub mod submit;
pub mod supervise;

impl crate::project_actor::ProjectActor {
    /// The R runtime of this service run (from `ProjectConfig`), for the runs and requirements
    /// owners' handlers.
    pub(crate) fn r_config(&self) -> &std::sync::Arc<crate::runs::config::RConfig> {
        &self.config().r
    }
}
