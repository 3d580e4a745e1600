import { constants, crc32, deflateRawSync } from 'zlib';

const MiB = 1024 * 1024;

/** One zip entry, its DEFLATE data already made. */
interface Entry {
  name: string;
  data: Buffer[];
  crc: number;
  size: number;
}

/** A deflated entry of small text. */
function textEntry(name: string, text: string): Entry {
  const raw = Buffer.from(text);
  return { name, data: [deflateRawSync(raw)], crc: crc32(raw), size: raw.length };
}

/**
 * A zip of the given entries (DEFLATE, no data descriptors), written as zip writers do: local header
 * and data per entry, then the central directory and its end record.
 */
function zip(entries: Entry[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const compressed = e.data.reduce((n, b) => n + b.length, 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(compressed, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(8, 10);
    head.writeUInt32LE(e.crc >>> 0, 16);
    head.writeUInt32LE(compressed, 20);
    head.writeUInt32LE(e.size, 24);
    head.writeUInt16LE(name.length, 28);
    head.writeUInt32LE(offset, 42);
    central.push(head, name);
    out.push(local, name, ...e.data);
    offset += local.length + name.length + compressed;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, directory, end]);
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/**
 * A DOCX whose word/document.xml inflates to about `inflatedBytes`: paragraphs
 * `<w:p><w:r><w:t>aaaa…</w:t></w:r></w:p>` repeated. The paragraphs are deflated once, one MiB of them
 * ending in a full flush (no reference reaches back past it), and that block is repeated: the file is
 * made in well under a second, and a real inflater reads every byte of it.
 */
export function docxBomb(inflatedBytes = 1200 * MiB): Buffer {
  const paragraph = `<w:p><w:r><w:t>${'a'.repeat(1000)}</w:t></w:r></w:p>`;
  const block = Buffer.from(paragraph.repeat(Math.floor(MiB / paragraph.length)));
  const head = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`,
  );
  const tail = Buffer.from('</w:body></w:document>');
  const flushed = (b: Buffer) => deflateRawSync(b, { finishFlush: constants.Z_FULL_FLUSH });
  const packed = flushed(block);
  const repeats = Math.max(1, Math.round(inflatedBytes / block.length));
  let crc = crc32(head);
  for (let i = 0; i < repeats; i++) crc = crc32(block, crc);
  crc = crc32(tail, crc);
  const document: Entry = {
    name: 'word/document.xml',
    data: [flushed(head), ...Array.from({ length: repeats }, () => packed), deflateRawSync(tail)],
    crc,
    size: head.length + repeats * block.length + tail.length,
  };
  return zip([
    textEntry(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    textEntry(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    document,
  ]);
}
