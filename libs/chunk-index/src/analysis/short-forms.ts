/**
 * The weight of each other form of a query word's short-form group, beside the word's own 1. Chosen
 * on the tuning sets (docs/benchmarks.md): the code sets gain, prose is unmoved (its words rarely meet
 * the short forms), 0.5 gains less.
 */
export const SHORT_FORM_WEIGHT = 0.25;

/**
 * Words and the short forms code is written with (`str` for string, `cfg` for configuration), one
 * group of forms that name the same thing a line. A query word of a group also searches the group's
 * other forms (queryTerms' `shortFormWeight`), so that "the length of a string" finds `strLen` and
 * "config" finds "configuration". A form is a word's stem, so every word of that stem takes the group
 * (initial and initialize both search `init`). Left out: short forms of two meanings in code (`res`,
 * `mod`, `std`, `pwd`, `ns`, `proc`), words of their own (`win`), those whose word shares its stem
 * with a common other word (`pos`: positive, `sep`: separate, `spec`: specific) and those that stem as
 * their word does (`iter`, `util`: nothing to add).
 */
const GROUPS = `
address addr
application app
argument arg
attribute attr
authentication auth
average avg
boolean bool
buffer buf
button btn
callback cb
certificate cert
character char
column col
command cmd
compare cmp
concatenate concat
configuration config cfg conf
connection conn
context ctx
coordinate coord
count cnt
current curr
database db
declaration decl
delete del
dependency dep
destination dest dst
dictionary dict
directory dir
document doc
element elem
environment env
equal eq
error err
evaluate eval
exception exc
execute exec
expression expr
extension ext
format fmt
function func fn
header hdr
identifier id
image img
implementation impl
index idx
information info
initialize init
language lang
length len
library lib
manager mgr
maximum max
message msg
minimum min
number num
object obj
option opt
package pkg
parameter param
password passwd
pointer ptr
previous prev
property prop
quantity qty
random rand
receive recv
rectangle rect
reference ref
repository repo
request req
response resp
sequence seq
socket sock
source src
statement stmt
string str
synchronize sync
system sys
table tbl
temporary tmp
text txt
token tok
transaction txn
user usr
value val
version ver
`;

/**
 * Each form's index term (by the analyzer's stemmer, passed in so that this module imports nothing)
 * with the other forms of its group, as written.
 */
export function shortFormTable(stem: (w: string) => string): ReadonlyMap<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of GROUPS.split('\n')) {
    const forms = line.split(' ').filter(Boolean);
    for (const f of forms)
      out.set(stem(f), [...new Set([...(out.get(stem(f)) ?? []), ...forms.filter((o) => stem(o) !== stem(f))])]);
  }
  return out;
}
