import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ShownOnce } from "../created-panel.tsx";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NewPanel } from "../new-panel.tsx";
import type { PageProps } from "../pages.ts";
import { deleteWebhook, listWebhooks } from "../webhooks/api.ts";
import { NewWebhookForm } from "../webhooks/form.tsx";
import { WebhookList } from "../webhooks/list.tsx";
import type { NewWebhook, Webhook } from "../wire.ts";

/** The user's webhook endpoints (`/dashboard/webhooks`): anyone signed in may have them. */
export function Webhooks({ user, onSignedOut }: PageProps) {
  const { loading, reload } = useLoad(listWebhooks, "The endpoints could not be loaded.");
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const remove = async (webhook: Webhook) => {
    if (!confirm(`Delete the endpoint ${isolated(webhook.url)} and its deliveries?`)) return;
    setDeleting(webhook.id);
    setDeleteError(null);
    try {
      await deleteWebhook(webhook.id);
      if (created?.id === webhook.id) setCreated(null);
    } catch (failure) {
      setDeleteError(messageOf(failure, "Deleting the endpoint failed."));
    }
    setDeleting(null);
    await reload();
  };

  return (
    <Layout user={user} title="Webhooks" onSignedOut={onSignedOut}>
      <p>
        depot POSTs a signed JSON event to your endpoints when a version of a product you own or hold is
        published.
      </p>
      {created ? (
        <ShownOnce
          id="created-webhook-secret"
          heading="Endpoint created"
          label="Signing secret"
          value={created.secret}
          note="Copy its signing secret now: it will not be shown again. Your receiver verifies each delivery with it."
          onDone={() => setCreated(null)}
        />
      ) : (
        <NewPanel label="New endpoint">
          {() => (
            <NewWebhookForm
              onCreated={(webhook) => {
                setCreated(webhook);
                void reload();
              }}
            />
          )}
        </NewPanel>
      )}
      <section aria-labelledby="webhook-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="webhook-list-heading">Your endpoints</h2>
        <ErrorAlert message={deleteError} />
        <Loaded loading={loading} label="Loading endpoints…">
          {(webhooks) => <WebhookList webhooks={webhooks} deleting={deleting} onDelete={remove} />}
        </Loaded>
      </section>
    </Layout>
  );
}
