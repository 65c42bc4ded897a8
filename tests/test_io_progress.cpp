// The progress line of the readers: printed on stderr only when stderr is a terminal
// and the load has run for over a second; silent on a pipe or when disabled.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "core/progress.hpp"

namespace {

using mimd::core_detail::Progress;

// Points file descriptor 2 at `fd` for the scope, restoring it afterwards.
class RedirectStderr {
 public:
  explicit RedirectStderr(int fd) : saved_(::dup(2)) {
    std::fflush(stderr);
    ::dup2(fd, 2);
  }
  ~RedirectStderr() {
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
  }
  RedirectStderr(const RedirectStderr&) = delete;
  RedirectStderr& operator=(const RedirectStderr&) = delete;

 private:
  int saved_;
};

std::string drain(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

TEST(IoProgress, OnlyOnATerminalAndAfterOneSecond) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const int tty = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);

  // Whether to print is decided when the load starts, from what stderr is then.
  std::unique_ptr<Progress> on_tty, on_pipe, disabled;
  {
    RedirectStderr r(tty);
    on_tty = std::make_unique<Progress>(true, "big.mtx");
    disabled = std::make_unique<Progress>(false, "big.mtx");
    on_tty->update("parsing", 10, 100);  // under a second: silent
  }
  {
    RedirectStderr r(pipefd[1]);
    on_pipe = std::make_unique<Progress>(true, "big.mtx");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  {
    RedirectStderr r(tty);
    disabled->update("parsing", 60, 100);
    disabled->done();
    on_tty->update("parsing", 50, 100);
    on_tty->done();
  }
  {
    RedirectStderr r(pipefd[1]);
    on_pipe->update("parsing", 50, 100);
    on_pipe->done();
  }
  const std::string shown = drain(master);
  EXPECT_NE(shown.find("[mimd] loading big.mtx: parsing  50%"), std::string::npos) << shown;
  EXPECT_NE(shown.find("[mimd] loaded big.mtx in "), std::string::npos) << shown;
  EXPECT_EQ(shown.find("10%"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("60%"), std::string::npos) << shown;
  EXPECT_EQ(drain(pipefd[0]), "");
  ::close(pipefd[0]);
  ::close(pipefd[1]);
  ::close(tty);
  ::close(master);
}

}  // namespace
