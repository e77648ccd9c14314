import * as chat from './chat.ts';
import * as auth from './auth.ts';
import * as stats from './stats.ts';
import * as conversations from './conversations.ts';
import * as tickets from './tickets.ts';
import * as intents from './intents.ts';
import * as articles from './articles.ts';
import * as integrations from './integrations.ts';
import * as deliveries from './deliveries.ts';
import * as audit from './audit.ts';
import * as settings from './settings.ts';
import * as members from './members.ts';
import * as live from './live.ts';
import * as nlu from './nlu.ts';
import * as team from './team.ts';
import * as pub from './public.ts';
import * as customers from './customers.ts';
import * as tenant from './tenant.ts';
import { routeKey, type Route } from '../route.ts';

// Every route of the service, in the order the OpenAPI document lists them. A function imports only
// its own area's file, so its bundle carries only that area's schemas.

export const routes: readonly Route[] = [
  chat,
  auth,
  stats,
  conversations,
  tickets,
  intents,
  articles,
  integrations,
  deliveries,
  audit,
  settings,
  members,
  live,
  nlu,
  team,
  customers,
  tenant,
  pub,
].flatMap((area): readonly Route[] => area.routes);

const byKey = new Map(routes.map((r) => [routeKey(r), r]));
export const findRoute = (key: string): Route | undefined => byKey.get(key);
