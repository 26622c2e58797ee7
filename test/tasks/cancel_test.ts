/** POST /tasks/{id}/cancel. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { inlineRefs } from "../support/openapi.ts";
import { insertTask } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const db = h.database.db;

async function activityFor(taskId: string) {
  return [
    ...(await db`select action, actor_key_id, detail from activity_log where workspace_id = ${ws.id} and subject_id = ${taskId}`),
  ];
}

describe("cancelling a task", () => {
  test("an open task becomes cancelled with its revision up by one, and the change is logged", async () => {
    const id = await insertTask(db, ws.id, { dueOn: "2026-03-29" });
    const res = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: "cancelled",
      revision: 2,
      priority: "high",
      dueOn: "2026-03-29",
      doneAt: null,
    });
    expect(Object.keys(res.body).sort()).toEqual([
      "assigneeContactId",
      "assigneeStaffId",
      "assigneeUserId",
      "branchId",
      "createdAt",
      "createdByUserId",
      "dedupeKey",
      "doneAt",
      "dueOn",
      "id",
      "priority",
      "requestId",
      "revision",
      "status",
      "subjectId",
      "subjectKind",
      "taskTypeId",
      "teamId",
      "title",
    ]);
    expect(await activityFor(id)).toEqual([
      { action: "tasks.cancelled", actorKeyId: ws.keyId, detail: { revision: 2 } },
    ]);
  });

  test("an in-progress task becomes cancelled", async () => {
    const id = await insertTask(db, ws.id, { status: "in_progress" });
    const res = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "cancelled", revision: 2 });
  });

  test("cancelling a cancelled task answers 200 with it unchanged and logs nothing more", async () => {
    const id = await insertTask(db, ws.id);
    const first = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    const again = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await activityFor(id)).toHaveLength(1);
  });

  test("a done task cannot be cancelled", async () => {
    const id = await insertTask(db, ws.id, { status: "done" });
    const res = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "TaskNotCancellable", taskId: id, status: "done" });
    const [row] = await db`select status, revision from tasks where workspace_id = ${ws.id} and id = ${id}`;
    expect(row).toEqual({ status: "done", revision: 1 });
    expect(await activityFor(id)).toHaveLength(0);
  });

  test("an unknown task is TaskNotFound", async () => {
    const res = await h.request("POST", "/tasks/no-such-task/cancel", { key: ws.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "TaskNotFound", taskId: "no-such-task" });
  });

  test("another workspace's task is TaskNotFound and stays open", async () => {
    const other = await h.workspace();
    const id = await insertTask(db, other.id);
    const res = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "TaskNotFound", taskId: id });
    const [row] = await db`select status, revision from tasks where workspace_id = ${other.id} and id = ${id}`;
    expect(row).toEqual({ status: "open", revision: 1 });
  });

  test("of ten concurrent cancellations exactly one changes the task", async () => {
    const id = await insertTask(db, ws.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => h.request("POST", `/tasks/${id}/cancel`, { key: ws.key })),
    );
    for (const a of answers) expect(a.body).toMatchObject({ status: "cancelled", revision: 2 });
    expect(await activityFor(id)).toHaveLength(1);
  });

  test("a body is refused: the operation takes none", async () => {
    const id = await insertTask(db, ws.id);
    const res = await h.request("POST", `/tasks/${id}/cancel`, { key: ws.key, body: { revision: 7 } });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
  });
});

describe("OpenAPI", () => {
  test("tasks.cancel documents the task record and its two refusals", async () => {
    const doc = inlineRefs((await h.request("GET", "/openapi.json")).body);
    const op = doc.paths["/tasks/{id}/cancel"].post;
    expect(op.operationId).toBe("tasks.cancel");
    expect(op.responses["200"].content["application/json"].schema.title).toBe("Task");
    expect(op.responses["404"].description).toContain("TaskNotFound");
    expect(op.responses["409"].description).toContain("TaskNotCancellable");
  });
});
