/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
import "./require-node";
import { migrate } from "@/lib/db/migrate";
import { withDatabase } from "@/lib/db/with-database";

const applied = await withDatabase((url) => migrate(url));
console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
