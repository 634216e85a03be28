import { z } from "zod";
import { CardSchema, TaskSchema } from "./card.js";

/** JSON Schemas for editors, generated from the same zod source the loader validates with. */
export function jsonSchemas(): Record<"benchcard.schema.json" | "task.schema.json", unknown> {
  const make = (schema: z.ZodType, id: string, title: string) => ({
    ...z.toJSONSchema(schema, { io: "input", target: "draft-2020-12", unrepresentable: "any" }),
    $id: `https://benchcard.dev/schema/${id}`,
    title,
  });
  return {
    "benchcard.schema.json": make(CardSchema, "benchcard.schema.json", "benchcard card (benchcard.yaml)"),
    "task.schema.json": make(TaskSchema, "task.schema.json", "benchcard task (tasks/<id>/task.yaml)"),
  };
}

export function renderJsonSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
