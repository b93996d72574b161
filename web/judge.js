// The judge's WebAssembly module (docs/JUDGE.md) for a browser or node:
// load(bytes) instantiates it (it imports nothing) and returns its two
// functions, each JSON text in, JSON text out.
export async function load(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const { memory, alloc, dealloc } = instance.exports;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  // The module takes the input buffer back; the answer is given back here.
  const call = (name) => (text) => {
    const input = encoder.encode(text);
    const ptr = alloc(input.length);
    new Uint8Array(memory.buffer, ptr, input.length).set(input);
    const packed = instance.exports[name](ptr, input.length);
    const at = Number(packed >> 32n);
    const len = Number(packed & 0xffffffffn);
    const answer = decoder.decode(new Uint8Array(memory.buffer, at, len));
    dealloc(at, len);
    return answer;
  };
  return { judge: call("judge"), check: call("check") };
}
