/** The specs' deterministic PRNG: the kernel's (`seededRandom`, mulberry32). */
export { seededRandom } from '../random';
