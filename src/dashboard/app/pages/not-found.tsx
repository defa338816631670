import { navigate } from "../router.ts";
import { PageHeading } from "./heading.tsx";

export function NotFound() {
  return (
    <main class="page">
      <PageHeading>Page not found</PageHeading>
      <p>
        There is no dashboard page here.{" "}
        <a
          href="/"
          onClick={(event) => {
            event.preventDefault();
            navigate("/");
          }}
        >
          Go to the dashboard home
        </a>
        .
      </p>
    </main>
  );
}
