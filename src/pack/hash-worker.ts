// A worker thread of hashPack: hashes its slice of paths and posts the entries back.
import { parentPort, workerData } from "node:worker_threads";
import { hashFilesSync } from "./hash.js";

const { root, paths } = workerData as { root: string; paths: string[] };
parentPort?.postMessage(hashFilesSync(root, paths));
