import { areasTable, framesTable, selfTimeByArea, topFrames } from './top-frames.js';
const f = process.argv[2]!;
console.log(areasTable(selfTimeByArea(f)));
console.log(framesTable(topFrames(f, 30)));
