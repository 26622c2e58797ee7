/**
 * The forms of the group's pages for people (the tenant's report, the contractor's visit): their text fields and
 * their photos, read from the form Bun parsed, and what a person is told when a photo is refused.
 */
import type { Form } from "../core/public_route.ts";
import { checkPhotos, type Photo, PhotoRejected, photoMaxBytes } from "./photos.ts";

/** The fields of a form as read: a value by name (a file counts as none). */
export interface FormFields {
  get(name: string): string | null;
}

/** A form's text fields (its files are read apart, by `formPhotos`). */
export function textFields(form: Form): FormFields {
  return {
    get: (name) => {
      const value = form.get(name);
      return typeof value === "string" ? value : null;
    },
  };
}

/** The most bytes a form with up to `photos` photos may have: the photos and its text fields. */
export const formLimit = (photos: number) => photos * photoMaxBytes + 256 * 1024;

/** What a refused photo's problem says, by PhotoRejected's reason. */
function photoProblem(error: PhotoRejected, most: number): string {
  const n = error.fields.index + 1;
  switch (error.fields.reason) {
    case "empty":
      return `Photo ${n} is empty.`;
    case "too_large":
      return `Photo ${n} is over 5 MB: please send a smaller one.`;
    case "too_many":
      return `Please send at most ${most} photos.`;
    case "not_jpeg_or_png":
      return `Photo ${n} is not a JPEG or PNG image.`;
  }
}

/**
 * The photos of a form's field `photo`, checked (JPEG or PNG by their bytes, 5 MiB each, at most `most`). Empty
 * parts are left out: a browser sends one when no file was chosen, and an empty file is no photo. What is wrong goes
 * to `problems` (and no photo is answered).
 */
export async function formPhotos(form: Form, most: number, problems: string[]): Promise<Photo[]> {
  const files = form.getAll("photo").filter((f) => typeof f !== "string" && f.size > 0);
  const uploads = await Promise.all(files.map((f) => (f as Blob).bytes()));
  try {
    return checkPhotos(uploads, most);
  } catch (error) {
    if (!(error instanceof PhotoRejected)) throw error;
    problems.push(photoProblem(error, most));
    return [];
  }
}
