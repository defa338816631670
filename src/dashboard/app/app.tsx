// Which page to show: the session decides first (signed out → sign-in), then the path.
import { useEffect, useState } from "preact/hooks";
import { NetworkError, onUnauthorized } from "./api.ts";
import { Home } from "./pages/home.tsx";
import { NotFound } from "./pages/not-found.tsx";
import { Profile } from "./pages/profile.tsx";
import { PASSWORD_SET_NOTICE, SET_PASSWORD_PATH, SetPassword } from "./pages/set-password.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { Tokens } from "./pages/tokens.tsx";
import { PROFILE_PATH, TOKENS_PATH } from "./paths.ts";
import { navigate, usePath } from "./router.ts";
import { currentUser, type User } from "./session.ts";

export const SIGN_IN_PATH = "/sign-in";

type Session =
  | { state: "checking" }
  | { state: "signed-out"; notice?: string; confirmation?: string }
  | { state: "signed-in"; user: User };

export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session>({ state: "checking" });

  useEffect(() => {
    // Any API call answered 401 later (an expired session) ends up here.
    onUnauthorized(() => setSession({ state: "signed-out" }));
    currentUser().then(
      (user) => setSession(user ? { state: "signed-in", user } : { state: "signed-out" }),
      (error) =>
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
    if (signedOutElsewhere) navigate(SIGN_IN_PATH, { replace: true });
    if (signedInOnSignIn) navigate("/", { replace: true });
  }, [signedOutElsewhere, signedInOnSignIn]);

  if (path === SET_PASSWORD_PATH) {
    const passwordSet = () => {
      // Setting the password ended the user's sessions: sign in afresh.
      setSession({ state: "signed-out", confirmation: PASSWORD_SET_NOTICE });
      navigate(SIGN_IN_PATH, { replace: true });
    };
    return <SetPassword onPasswordSet={passwordSet} />;
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
          navigate("/");
        }}
      />
    );
  }
  const signedOut = () => setSession({ state: "signed-out" });
  if (path === "/") return <Home user={session.user} onSignedOut={signedOut} />;
  if (path === TOKENS_PATH) return <Tokens user={session.user} onSignedOut={signedOut} />;
  if (path === PROFILE_PATH) return <Profile user={session.user} onSignedOut={signedOut} />;
  return <NotFound />;
}
