// A failure said where it happened, announced as it appears; nothing while there is none.
export function ErrorAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}
