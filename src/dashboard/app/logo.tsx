// depot's mark, the favicon's drawing (src/dashboard/favicon.svg) in the accent colour; decorative.
export function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="currentColor" />
      <path
        d="M16 6v11m-5-5 5 5 5-5M8 20v5h16v-5"
        fill="none"
        stroke-width="3"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  );
}
