import { z } from "zod";
import { CardSchema, TaskSchema } from "./card.js";
import { AgentSpecSchema } from "../attempt/agent.js";
import { CanaryManifestSchema } from "../canary/manifest.js";

/** JSON Schemas for editors, generated from the same zod source the loader validates with. */
export function jsonSchemas(): Record<"benchcard.schema.json" | "task.schema.json" | "agent.schema.json" | "canaries.schema.json", unknown> {
  const make = (schema: z.ZodType, id: string, title: string) => ({
    ...z.toJSONSchema(schema, { io: "input", target: "draft-2020-12", unrepresentable: "any" }),
    $id: `https://benchcard.dev/schema/${id}`,
    title,
  });
  return {
    "benchcard.schema.json": make(CardSchema, "benchcard.schema.json", "benchcard card (benchcard.yaml)"),
    "task.schema.json": make(TaskSchema, "task.schema.json", "benchcard task (tasks/<id>/task.yaml)"),
    "agent.schema.json": make(AgentSpecSchema, "agent.schema.json", "benchcard agent spec (--agent spec.yaml)"),
    "canaries.schema.json": make(CanaryManifestSchema, "canaries.schema.json", "benchcard canary manifest (benchcard canary <manifest>)"),
  };
}

export function renderJsonSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
