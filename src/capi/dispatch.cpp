// The C API's dispatch thread (dispatch.hpp).
#include "capi/dispatch.hpp"

#include <Kokkos_Core.hpp>

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace mimd::capi_detail {
namespace {

// Kokkos 4 OpenMP accepts launches from any host thread (one mutex per instance).
constexpr bool kAnyThreadLaunches =
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
    std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::OpenMP>::value;
#else
    false;
#endif

class Dispatcher {
 public:
  // Decided once, at the first call: a program that initialised Kokkos keeps its
  // launches on its own thread, and so does every caller where any thread may launch.
  Dispatcher() : own_thread_(!kAnyThreadLaunches && !Kokkos::is_initialized()) {
    if (own_thread_) worker_ = std::thread([this] { loop(); });
  }

  bool owns_thread() const { return own_thread_; }

  void run(const std::function<void()>& work) {
    if (!own_thread_) {
      std::lock_guard<std::recursive_mutex> serial(direct_);
      work();
      return;
    }
    if (std::this_thread::get_id() == worker_.get_id()) {
      work();
      return;
    }
    std::lock_guard<std::mutex> one_call(submit_);
    std::unique_lock<std::mutex> lock(mutex_);
    task_ = &work;
    wake_.notify_one();
    done_.wait(lock, [this] { return task_ == nullptr; });
    // Handed over, not kept: the caller's thread alone then holds the exception, so the
    // next caller's thread never destroys it while this one may still be reading it.
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return task_ != nullptr; });
      try {
        (*task_)();
      } catch (...) {
        error_ = std::current_exception();
      }
      task_ = nullptr;
      done_.notify_one();
    }
  }

  const bool own_thread_;
  std::thread worker_;
  std::recursive_mutex direct_;
  std::mutex submit_;  // one caller at a time hands over its work
  std::mutex mutex_;   // guards task_ and error_
  std::condition_variable wake_, done_;
  const std::function<void()>* task_ = nullptr;
  std::exception_ptr error_;  // the failure of task_, until run() rethrows it
};

// Never destroyed: its thread must outlive every static object that may still call
// the C API, and Kokkos is finalised on it at exit.
Dispatcher& dispatcher() {
  static Dispatcher* d = new Dispatcher();
  return *d;
}

}  // namespace

void dispatch(const std::function<void()>& work) {
  dispatcher().run(work);
}

void finalize_on_dispatch_thread_at_exit() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!dispatcher().owns_thread()) return;
    std::atexit([] {
      dispatcher().run([] {
        if (Kokkos::is_initialized()) Kokkos::finalize();
      });
    });
  });
}

}  // namespace mimd::capi_detail
