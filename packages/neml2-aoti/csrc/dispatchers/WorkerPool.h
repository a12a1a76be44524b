// A private pool of worker threads, one task queue each (tasks of one queue run in order).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace neml2::aoti
{
class WorkerPool
{
public:
  explicit WorkerPool(std::size_t workers);
  /// Lets every queued task finish, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool & operator=(const WorkerPool &) = delete;

  /// Queue a task on one worker. The task must not throw (it is run inside noexcept code).
  void submit(std::size_t worker, std::function<void()> task);

  /// Serializes the users of the pool (one scheduling run at a time).
  std::mutex & run_mutex() { return _run_mutex; }

private:
  struct Worker
  {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<std::function<void()>> tasks;
    bool stop = false;
    std::thread thread;
  };
  static void loop(Worker & worker) noexcept;

  std::vector<std::unique_ptr<Worker>> _workers;
  std::mutex _run_mutex;
};
} // namespace neml2::aoti
