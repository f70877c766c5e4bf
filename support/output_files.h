//===- output_files.h - Every file a command writes, all or none -*- C++ -*-===//
//
// The one way an mxforge command writes the files a user named (`-o`,
// `--out`): the .hsaco, .mxfb and .npy outputs. What it promises:
//
//  - nothing already written is lost: regular files are staged next to their
//    destination (StagedFile) and renamed into place only when every output
//    of the command has been staged; on any error no destination changes and
//    no temporary remains;
//  - special destinations are written, never replaced: a character device or
//    a FIFO that exists (`-o /dev/stdout`, `-o /dev/null`, a pipe) is opened
//    and written directly (a FIFO without a reader is an error, not a hang);
//    a directory, block device or socket is refused;
//  - a path through a descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N)
//    is written through that descriptor, whatever it is: `-o /dev/stdout
//    >> log` appends to log as any program writing to stdout would, and a
//    regular file behind it is never replaced by a rename;
//  - a symlink is followed: the file it names is replaced atomically and the
//    link stays a link; a dangling symlink is refused. Files mxforge names
//    itself inside a folder (bundle extract, dumps) are the exception: a
//    link already there is refused, never followed (ExistingLink::Refuse);
//  - destinations are compared by identity (device and inode when the file
//    exists, else the real path of its directory plus its name), not by
//    spelling: two outputs naming one file, or an output naming one of the
//    command's inputs, are refused before anything is written.
//
//===----------------------------------------------------------------------===//
#ifndef MXFORGE_SUPPORT_OUTPUT_FILES_H
#define MXFORGE_SUPPORT_OUTPUT_FILES_H

#include "support/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxf {

/// What an existing symlink at an output's path means.
enum class ExistingLink {
  Follow, // a path the user named: the file the link names is written
  Refuse, // a name mxforge chose inside a folder it fills: a link someone
          // planted there would redirect the write outside it
};

struct OutputFile {
  std::string what; // how messages name it: "output q", "the bundle"
  std::string path;
  std::vector<uint8_t> bytes;
  ExistingLink links = ExistingLink::Follow;
};

/// Writes all of `outputs` or none of them (see the file comment).
/// `inputs` are the paths the command read; no output may be one of them.
Status writeOutputFiles(const std::vector<OutputFile> &outputs,
                        const std::vector<std::string> &inputs = {});

/// The identity checks alone, for commands that want them before spending
/// time on a compile: no two of `outputs` and no output and input are one
/// file. `outputWhat[i]` names `outputs[i]` in the message.
Status checkDistinctOutputs(const std::vector<std::string> &outputs,
                            const std::vector<std::string> &outputWhat,
                            const std::vector<std::string> &inputs);

/// True if `path` is "-" or names the file standard output is (e.g.
/// /dev/stdout): a command then keeps its progress lines off stdout.
bool namesStandardOutput(const std::string &path);

} // namespace mxf

#endif // MXFORGE_SUPPORT_OUTPUT_FILES_H
