//! What each method answers: [`methods`] holds the shared `Core` and the
//! methods answered at once (`initialize`, `server/discover`, the lists,
//! subscriptions, logging), [`era`] the era, revision and caller a
//! request is served as; [`call`] runs `tools/call` in named steps;
//! [`reads`] answers `resources/read`, `prompts/get` and
//! `completion/complete`; [`task_methods`] the `tasks/*` requests; [`listen`]
//! `subscriptions/listen`. Reads the rooms below it.

pub(in crate::server) mod call;
pub(in crate::server) mod era;
pub(in crate::server) mod listen;
pub(in crate::server) mod methods;
pub(in crate::server) mod reads;
pub(in crate::server) mod task_methods;
