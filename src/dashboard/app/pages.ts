// Every signed-in page, by path: the app shows the first whose pattern matches (router.ts matchPath).
import type { JSX } from "preact";
import { Home } from "./pages/home.tsx";
import { ProductPage } from "./pages/product.tsx";
import { Products } from "./pages/products.tsx";
import { Profile } from "./pages/profile.tsx";
import { Tokens } from "./pages/tokens.tsx";
import { HOME_PATH, PRODUCT_PATH, PRODUCTS_PATH, PROFILE_PATH, TOKENS_PATH } from "./paths.ts";
import type { User } from "./session.ts";

export interface PageProps {
  user: User;
  /** The path's parameters (`:product` → `params.product`). */
  params: Record<string, string>;
  onSignedOut: () => void;
}

export const PAGES: { path: string; page: (props: PageProps) => JSX.Element }[] = [
  { path: HOME_PATH, page: Home },
  { path: TOKENS_PATH, page: Tokens },
  { path: PROFILE_PATH, page: Profile },
  { path: PRODUCTS_PATH, page: Products },
  { path: PRODUCT_PATH, page: ProductPage },
];
