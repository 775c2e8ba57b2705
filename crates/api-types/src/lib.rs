//! The API's types as they cross the wire: the resources it answers with, the bodies of its
//! requests, a page of a list and the error envelope. Serde and OpenAPI schemas only, no
//! behaviour: the server (`api`, `operations`) writes them and the client (`client`) reads
//! them, so a field is declared once for both sides and the OpenAPI document is generated from
//! the same declarations.

use serde::Deserialize;

mod errors;
mod page;
mod requests;
mod resources;

pub use errors::{ErrorEnvelope, ErrorObject, ErrorType};
pub use page::Page;
pub use requests::{
    CreateToken, CreateWebhook, CreateWorkspace, DriftCheckOptions, InviteMember,
    RecoverDeliveries, RegenerateArticle, ReplayDelivery, RotateSecret, SendTestEvent,
    SetForgeToken, SetPublishTarget, SetRepositoryToken, TriggerRun, UpdateMember, UpdateWebhook,
    UpdateWorkspace,
};
pub use resources::{
    Article, ArticleVersion, Delivery, DeliveryAttempt, DriftCheck, DriftReport, EventTypeInfo,
    EventTypeList, ForgeConnection, ForgeDelivery, ForgeEndpoints, Member, PublishSync,
    PublishTarget, PullRequestCheck, Recovered, Repository, RepositoryCredential, Run, RunArtifact,
    RunLogEvent, RunTrigger, Token, Webhook, Workspace,
};

/// Lets `"field": null` be told apart from an absent field (PATCH bodies, fields shown only
/// to some callers).
fn double_option<'de, T, D>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}
