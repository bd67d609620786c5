/** Types of find-chromium.mjs for the TypeScript tests that import it. */
export declare function findChromium(): Promise<{ executablePath: string; args: string[]; source: string }>;
