// Which page to show: the session decides first (signed out → sign-in), then the path.
import { useEffect, useState } from "preact/hooks";
import { NetworkError, onUnauthorized } from "./api.ts";
import { NotFound } from "./pages/not-found.tsx";
import { PASSWORD_SET_NOTICE, SET_PASSWORD_PATH, SetPassword } from "./pages/set-password.tsx";
import { Setup } from "./pages/setup.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { PAGES } from "./pages.ts";
import { matchPath, navigate, usePath } from "./router.ts";
import { currentUser } from "./session.ts";
import { setupRequired } from "./setup.ts";
import type { User } from "./wire.ts";

export const SIGN_IN_PATH = "/sign-in";

/** The sign-in page, remembering the page the reader was sent from (a bookmark, a shared link). */
const signInFrom = (path: string) =>
  path === "/" ? SIGN_IN_PATH : `${SIGN_IN_PATH}?next=${encodeURIComponent(path + location.search)}`;

/** Where signing in leads: the remembered page if it is one of ours (a path, never `//host`), else home. */
function pathAfterSignIn(): string {
  const next = new URLSearchParams(location.search).get("next");
  return next && /^\/(?![/\\])/.test(next) ? next : "/";
}

type Session =
  | { state: "checking" }
  | { state: "signed-out"; notice?: string; confirmation?: string }
  /** No user exists yet: every page is "Create the first admin" (first run). */
  | { state: "setup" }
  | { state: "signed-in"; user: User };

export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session>({ state: "checking" });

  useEffect(() => {
    // Any API call answered 401 later (an expired session) ends up here.
    onUnauthorized(() => setSession({ state: "signed-out" }));
    // Signed out on a server with no users yet: the first admin is to be created, not signed in.
    const signedOut = async (): Promise<Session> =>
      (await setupRequired()) ? { state: "setup" } : { state: "signed-out" };
    currentUser()
      .then(async (user): Promise<Session> => (user ? { state: "signed-in", user } : await signedOut()))
      .then(setSession, (error) =>
        setSession({
          state: "signed-out",
          notice: error instanceof NetworkError ? error.message : "Your session could not be checked.",
        }),
      );
  }, []);

  // The set-password page needs no session: its link is the credential.
  const signedOutElsewhere =
    session.state === "signed-out" && path !== SIGN_IN_PATH && path !== SET_PASSWORD_PATH;
  const signedInOnSignIn = session.state === "signed-in" && path === SIGN_IN_PATH;
  useEffect(() => {
    if (signedOutElsewhere) navigate(signInFrom(location.pathname), { replace: true });
    if (signedInOnSignIn) navigate(pathAfterSignIn(), { replace: true });
  }, [signedOutElsewhere, signedInOnSignIn]);

  if (path === SET_PASSWORD_PATH) {
    const passwordSet = () => {
      // Setting the password ended the user's sessions: sign in afresh.
      setSession({ state: "signed-out", confirmation: PASSWORD_SET_NOTICE });
      navigate(SIGN_IN_PATH, { replace: true });
    };
    return <SetPassword onPasswordSet={passwordSet} />;
  }
  if (session.state === "setup") {
    const created = (user: User) => {
      setSession({ state: "signed-in", user });
      // The setup link's page is gone once the admin exists: home, without the code in the history.
      navigate("/", { replace: true });
    };
    return <Setup onSignedIn={created} />;
  }
  if (session.state === "checking" || signedOutElsewhere || signedInOnSignIn) {
    return (
      <main class="page">
        <p aria-live="polite">Loading…</p>
      </main>
    );
  }
  if (session.state === "signed-out") {
    return (
      <SignIn
        notice={session.notice}
        confirmation={session.confirmation}
        onSignedIn={(user) => {
          setSession({ state: "signed-in", user });
          navigate(pathAfterSignIn());
        }}
      />
    );
  }
  const signedOut = () => {
    // Signing out on purpose is no detour: the next sign-in starts at home.
    navigate(SIGN_IN_PATH);
    setSession({ state: "signed-out" });
  };
  for (const { path: pattern, page: Page, shows } of PAGES) {
    const params = matchPath(pattern, path);
    if (params && shows && !shows(session.user))
      return <NotFound user={session.user} onSignedOut={signedOut} />;
    // Keyed by path: another product's page starts afresh rather than showing the last one's state.
    if (params)
      return (
        <Page
          key={path}
          user={session.user}
          params={params}
          onSignedOut={signedOut}
          onUserChanged={(user) => setSession({ state: "signed-in", user })}
        />
      );
  }
  return <NotFound user={session.user} onSignedOut={signedOut} />;
}
